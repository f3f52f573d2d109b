import { Chalk } from 'chalk';
import type { Chunk } from '../model/chunk.js';

/** Leaves shown per section on a terminal; `--json` prints everything. */
const MAX_FIGURES = 16;

interface Figure {
  path: string;
  text: string;
}

/** Counts and dollars of 10,000 and up read better with separators; years and codes stay as they are. */
function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) >= 10_000 ? value.toLocaleString('en-US') : String(value);
  if (Array.isArray(value)) return formatList(value);
  return String(value);
}

/** Named things (schools, superfund sites) by name; other records by count. */
function formatList(items: readonly unknown[]): string {
  if (items.length === 0) return 'none';
  const names = items.map((item) => (item && typeof item === 'object' ? (item as { name?: unknown }).name : undefined));
  if (names.every((name) => typeof name === 'string')) return names.join('; ');
  return `${items.length} record${items.length === 1 ? '' : 's'}`;
}

/** The scalar leaves of a result by dotted path; a list is one figure (its length). */
function figures(value: unknown, path: string[] = []): Figure[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).flatMap(([name, inner]) => figures(inner, [...path, name]));
  }
  return [{ path: path.join('.') || 'result', text: formatValue(value) }];
}

function section(name: string, value: unknown, paint: InstanceType<typeof Chalk>): string[] {
  const { api_code: apiCode, result } = (value ?? {}) as { api_code?: unknown; result?: unknown };
  if (apiCode !== 0) return [`${paint.bold(name)}  ${paint.yellow(apiCode === 204 ? 'no content' : `api_code ${String(apiCode)}`)}`];
  const all = figures(result);
  const shown = all.slice(0, MAX_FIGURES);
  const width = Math.max(...shown.map((figure) => figure.path.length));
  const lines = [paint.bold(name), ...shown.map((figure) => `  ${paint.dim(figure.path.padEnd(width))}  ${figure.text}`)];
  if (all.length > shown.length) lines.push(paint.dim(`  ... ${all.length - shown.length} more (--json shows everything)`));
  return lines;
}

function heading(chunk: Chunk, paint: InstanceType<typeof Chalk>): string[] {
  const address = chunk.address_info as
    | { address_full?: string; slug?: string; block_id?: string; geo_precision?: string; status?: { match?: boolean; errors?: string[] } }
    | undefined;
  const block = chunk.block_info as { block_id?: string } | undefined;
  const lines: string[] = [];
  if (address?.status?.match === false) {
    const why = address.status.errors?.length ? `: ${address.status.errors.join('; ')}` : '';
    lines.push(paint.red(`address not resolved${why}`));
  } else if (address) {
    lines.push(paint.bold.cyan(address.address_full ?? '(address)'));
    lines.push(paint.dim(`  slug ${address.slug ?? '-'} · block ${address.block_id ?? '-'} · ${address.geo_precision ?? ''}`));
  } else if (block) {
    lines.push(paint.bold.cyan(`block ${block.block_id ?? '-'}`));
  }
  if (chunk.meta !== undefined) lines.push(paint.dim(`  meta ${String(chunk.meta)}`));
  return lines;
}

/**
 * A one-off answer for a person at a terminal: the resolved item, then each section's figures,
 * a 204 section as "no content". Machines get the JSON (`--json`, or any stdout that is not a
 * terminal).
 */
export function renderChunks(chunks: readonly Chunk[], options: { color: boolean }): string {
  const paint = new Chalk({ level: options.color ? 1 : 0 });
  const blocks = chunks.map((chunk) => {
    const sections = Object.entries(chunk).filter(([name]) => name.includes('/'));
    return [...heading(chunk, paint), ...sections.flatMap(([name, value]) => ['', ...section(name, value, paint)])].join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}
