import type { OptionSpec } from './option-spec.js';

/** A markdown table cell: a `|` would end the cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Prose in a cell: `<key>` would be read as an HTML tag. */
export const prose = (text: string) => cell(text).replace(/</g, '&lt;');

/** Code in a cell: shown as typed. */
export const code = (text: string) => `\`${cell(text)}\``;

/** A markdown table: its header, then one line a row of cells already made (prose(), code()). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The flags as a reader types them: a choice option shows its choices (`--format csv|json`). */
function flagsOf(option: OptionSpec): string {
  return option.choices ? option.flags.replace(/<[^>]*>/, option.choices.join('|')) : option.flags;
}

/** What commander's help adds after a description, in its words: `(default: 100)`, `(env: PROPDATA_API_KEY)`. */
function extrasOf(option: OptionSpec): string {
  const extras = [
    option.defaultValue === undefined ? undefined : `default: ${JSON.stringify(option.defaultValue)}`,
    option.env === undefined ? undefined : `env: ${option.env}`,
  ].filter((extra) => extra !== undefined);
  return extras.length > 0 ? ` (${extras.join(', ')})` : '';
}

/** One row per option, in declaration order: what `--help` says, as a markdown table. */
// Exported for test/options/readme-tables.test.ts, which checks and rewrites the documentation with it.
export function renderOptionTable(options: readonly OptionSpec[]): string {
  return markdownTable(
    ['option', 'meaning'],
    options.map((option) => [code(flagsOf(option)), prose(option.description + extrasOf(option))]),
  );
}

/**
 * `<!-- KIND: NAME -->` ... `<!-- /KIND -->`, each marker a line of its own: a generated block in a
 * markdown page. A marker quoted in prose (as the page that explains them quotes them) is not one.
 */
const block = (kind: string) => new RegExp(`^(<!-- ${kind}: ([\\w-]+) -->)$[\\s\\S]*?^(<!-- \\/${kind} -->)$`, 'gm');

/**
 * The page with every block of `kind` rendered again from `blocks` (by the name in its marker). A
 * marker naming no block is an error: the page would silently keep a stale one.
 */
// Exported for test/options/readme-tables.test.ts, which checks and rewrites the documentation with it.
export function renderMarkedBlocks(page: string, kind: string, blocks: Readonly<Record<string, string>>): string {
  return page.replace(block(kind), (_whole, open: string, name: string, close: string) => {
    const text = blocks[name];
    if (text === undefined) throw new Error(`no ${kind} block named "${name}" (known: ${Object.keys(blocks).join(', ')})`);
    return `${open}\n${text}\n${close}`;
  });
}

/** The names of the blocks of `kind` a page marks, in page order. */
// Exported for test/options/readme-tables.test.ts, which checks and rewrites the documentation with it.
export function markedBlocks(page: string, kind: string): string[] {
  return [...page.matchAll(block(kind))].map((match) => match[2]!);
}

/** Every `<!-- options: NAME -->` table rendered again from `tables`, the option lists by name. */
// Exported for test/options/readme-tables.test.ts, which checks and rewrites the documentation with it.
export function renderOptionTables(page: string, tables: Readonly<Record<string, readonly OptionSpec[]>>): string {
  return renderMarkedBlocks(
    page,
    'options',
    Object.fromEntries(Object.entries(tables).map(([name, options]) => [name, renderOptionTable(options)])),
  );
}
