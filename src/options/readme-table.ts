import type { OptionSpec } from './option-spec.js';

/** A markdown table cell: a `|` would end the cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Prose in a cell: `<key>` would be read as an HTML tag. */
const prose = (text: string) => cell(text).replace(/</g, '&lt;');

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
export function renderOptionTable(options: readonly OptionSpec[]): string {
  const rows = options.map((option) => `| \`${cell(flagsOf(option))}\` | ${prose(option.description + extrasOf(option))} |`);
  return ['| option | meaning |', '| --- | --- |', ...rows].join('\n');
}

/** `<!-- options: NAME -->` ... `<!-- /options -->`: a generated table in a markdown page. */
const BLOCK = /(<!-- options: ([\w-]+) -->)[\s\S]*?(<!-- \/options -->)/g;

/**
 * The page with every marked table rendered again from `tables` (by the name in its marker). A
 * marker naming no table is an error: the page would silently keep a stale table.
 */
export function renderOptionTables(page: string, tables: Readonly<Record<string, readonly OptionSpec[]>>): string {
  return page.replace(BLOCK, (_whole, open: string, name: string, close: string) => {
    const options = tables[name];
    if (!options) throw new Error(`no option table named "${name}" (known: ${Object.keys(tables).join(', ')})`);
    return `${open}\n${renderOptionTable(options)}\n${close}`;
  });
}

/** The names of the tables a page marks, in page order. */
export function markedOptionTables(page: string): string[] {
  return [...page.matchAll(BLOCK)].map((match) => match[2]!);
}
