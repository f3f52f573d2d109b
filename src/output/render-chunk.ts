import { Chalk } from 'chalk';
import type { Chunk } from '../model/chunk.js';

/**
 * Leaves shown per section; `--json` prints everything. Enough for the largest described result
 * (`property/details`: its assessment and year built are past the 30th).
 */
const MAX_FIGURES = 48;
/** Records of a list shown one a line (sales, liens); the rest are counted. */
const MAX_RECORDS = 10;

interface Figure {
  path: string;
  text: string;
  /** A list of records: one line each, under the figure. */
  rows?: string[];
}

/** Years, ids and codes are labels, not quantities: never grouped (`2019`, not `2,019`). */
const LABEL = /(^|_)year(_|$)|(^|_)(id|fips|zip|zipcode|code|num|msa|metrodiv|block|blockgroup)$/;

/**
 * Numbers the same way everywhere: quantities of 1,000 and up grouped by thousands, fractions to
 * at most 4 decimals; labels as given.
 */
function formatNumber(value: number, name: string): string {
  if (LABEL.test(name) || !Number.isFinite(value)) return String(value);
  return value.toLocaleString('en-US', { maximumFractionDigits: Math.abs(value) >= 1000 ? 2 : 4, useGrouping: Math.abs(value) >= 1000 });
}

function formatValue(value: unknown, name: string): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number') return formatNumber(value, name);
  if (typeof value === 'string') return value;
  return typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : JSON.stringify(value);
}

type Row = Record<string, unknown>;
const isRow = (item: unknown): item is Row => item !== null && typeof item === 'object' && !Array.isArray(item);

/** A party to a deed or lien: `SMITH JOHN`, from `grantee_1` and `grantee_1_forenames`. */
function party(row: Row, role: 'grantor' | 'grantee'): string {
  const names = [1, 2]
    .map((n) => [row[`${role}_${n}`], row[`${role}_${n}_forenames`]].filter((part) => typeof part === 'string' && part !== '').join(' '))
    .filter((text) => text !== '');
  return names.join(' & ');
}

/** One record of a list on one line: its date, amount, kind and parties (sales, liens, disasters). */
function recordLine(row: Row): string {
  const dateKey =
    ['record_date', 'declared_date', 'date'].find((key) => typeof row[key] === 'string') ??
    Object.keys(row).find((key) => key.endsWith('_date'));
  const parts: string[] = [];
  if (dateKey !== undefined) parts.push(formatValue(row[dateKey], dateKey));
  if (typeof row.amount === 'number') parts.push(`$${formatNumber(row.amount, 'amount')}`);
  for (const key of ['event_type', 'lien_type', 'title', 'type']) if (typeof row[key] === 'string') parts.push(row[key]);
  const [from, to] = [party(row, 'grantor'), party(row, 'grantee')];
  if (from || to) parts.push(`${from || '-'} → ${to || '-'}`);
  if (parts.length > 0) return parts.join('  ');
  return Object.entries(row)
    .filter(([, value]) => value !== null && typeof value !== 'object')
    .slice(0, 4)
    .map(([key, value]) => `${key} ${formatValue(value, key)}`)
    .join(' · ');
}

/** Named things (schools, superfund sites) by name; other records one a line; a list of plain values joined. */
function listFigure(path: string, items: readonly unknown[]): Figure {
  if (items.length === 0) return { path, text: 'none' };
  if (!items.every(isRow)) return { path, text: items.map((item) => formatValue(item, path)).join('; ') };
  const names = items.map((item) => item.name ?? item.site_name);
  if (names.every((name) => typeof name === 'string')) return { path, text: names.join('; ') };
  const rows = items.slice(0, MAX_RECORDS).map(recordLine);
  if (items.length > MAX_RECORDS) rows.push(`... ${items.length - MAX_RECORDS} more`);
  return { path, text: `${items.length} record${items.length === 1 ? '' : 's'}`, rows };
}

/** The scalar leaves of a result by dotted path; a list is one figure (its names, or its records a line each). */
function figures(value: unknown, path: string[] = []): Figure[] {
  if (isRow(value)) return Object.entries(value).flatMap(([name, inner]) => figures(inner, [...path, name]));
  const label = path.join('.') || 'result';
  if (Array.isArray(value)) return [listFigure(label, value)];
  return [{ path: label, text: formatValue(value, path[path.length - 1] ?? '') }];
}

/** Geocode's result is `true`; its answer is the address: where it is and how precisely. */
function geocodeFigures(chunk: Chunk): Figure[] {
  const info = isRow(chunk.address_info) ? chunk.address_info : {};
  const lng = info.lng ?? info.lon;
  const figure = (path: string, value: unknown): Figure[] => (value === undefined ? [] : [{ path, text: formatValue(value, path) }]);
  return [
    ...figure('lat', info.lat),
    ...figure('lng', lng),
    ...figure('county_fips', info.county_fips),
    ...figure('geo_precision', info.geo_precision),
  ];
}

function section(name: string, value: unknown, chunk: Chunk, paint: InstanceType<typeof Chalk>): string[] {
  const { api_code: apiCode, result } = (value ?? {}) as { api_code?: unknown; result?: unknown };
  if (apiCode !== 0) return [`${paint.bold(name)}  ${paint.yellow(apiCode === 204 ? 'no content' : `api_code ${String(apiCode)}`)}`];
  const located = name.endsWith('/geocode') && result === true ? geocodeFigures(chunk) : [];
  const all = located.length > 0 ? located : figures(result);
  const shown = all.slice(0, MAX_FIGURES);
  const width = Math.max(...shown.map((figure) => figure.path.length));
  const lines = [
    paint.bold(name),
    ...shown.flatMap((figure) => [
      `  ${paint.dim(figure.path.padEnd(width))}  ${figure.text}`,
      ...(figure.rows ?? []).map((row) => `    ${row}`),
    ]),
  ];
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
    const precision = address.geo_precision ? ` · precision ${address.geo_precision}` : '';
    lines.push(paint.dim(`  slug ${address.slug ?? '-'} · block ${address.block_id ?? '-'}${precision}`));
  } else if (block) {
    lines.push(paint.bold.cyan(`block ${block.block_id ?? '-'}`));
  }
  if (chunk.meta !== undefined) lines.push(paint.dim(`  meta ${typeof chunk.meta === 'string' ? chunk.meta : JSON.stringify(chunk.meta)}`));
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
    return [...heading(chunk, paint), ...sections.flatMap(([name, value]) => ['', ...section(name, value, chunk, paint)])].join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}
