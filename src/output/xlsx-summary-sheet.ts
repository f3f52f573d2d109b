import type { stream } from 'exceljs';
import { textCell, type CellValue } from './xlsx-cell-value.js';
import { DOLLARS } from './xlsx-number-formats.js';

/**
 * The summary's members as a person reads them, by dotted path, in the report's order. A member
 * not named here (one added later) is labelled from its own name: `rowsRead` reads "rows read".
 */
const LABELS: Readonly<Record<string, string>> = {
  outcome: 'Outcome',
  stoppedBecause: 'Stopped because',
  nextRow: 'First row not written (a rerun starts there)',
  restInStore: 'Answers after it kept in the store (a rerun writes them free)',
  output: 'Output',
  rowsRead: 'Rows read',
  'records.ok': 'Rows answered (ok)',
  'records.partial': 'Rows partly answered (partial)',
  'records.no_content': 'Rows the service had no data for (no_content)',
  'records.invalid_input': 'Rows refused as invalid (invalid_input)',
  'records.error': 'Rows that failed (error)',
  'records.not_sent': 'Rows not sent before the stop (not_sent)',
  requests: 'Requests sent',
  componentsUsed: 'Components used',
  componentsSaved: 'Components saved by sending identical items once',
  fromStore: 'Rows answered whole from the local store',
  partlyFromStore: 'Items answered in part from the local store',
  savedByStore: 'List price the local store saved (USD)',
  retries: 'Requests sent again (retries)',
  retriedPossiblyCharged: 'Retried requests the service may also have charged',
  notSent: 'Rows not sent before the stop (a rerun sends them)',
  rateLimitWaits: 'Requests refused by the rate limit (429)',
  rateLimitWaitSeconds: 'Time waited for the rate limit (seconds)',
  rateLimits: 'Rate limits',
  rateLimitsStated: 'Rate limits stated by the service',
  costUsd: 'Cost at list price (USD)',
  elapsedSeconds: 'Time taken (seconds)',
  itemsPerMinute: 'Items per minute',
  'inputRepairs.identifierCells': 'Identifier cells that were numbers, made text again',
  'inputRepairs.firstRows': 'First rows repaired',
  'inputRepairs.example': 'Example of a repair',
  'paddedIdentifiers.count': 'Identifiers given back the leading zero a spreadsheet dropped',
  'paddedIdentifiers.firstRows': 'First rows padded',
};

/** Members that are amounts of dollars: shown with cents and thousands separators. */
const MONEY = new Set(['costUsd', 'savedByStore']);

/** `retriedPossiblyCharged` → "Retried possibly charged": a label for a member LABELS does not name. */
function wordsOf(path: string): string {
  const words = path
    .split('.')
    .map((name) =>
      name
        .replace(/_/g, ' ')
        .replace(/([a-z])([A-Z])/g, '$1 $2')
        .toLowerCase(),
    )
    .join(': ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What this run wrote of the file's records: the same words as the file's, said of this run. */
const THIS_RUN = 'recordsThisRun.';

function labelOf(path: string): string {
  if (path.startsWith(THIS_RUN)) {
    const label = LABELS[`records.${path.slice(THIS_RUN.length)}`];
    if (label) return `This run: ${label.charAt(0).toLowerCase()}${label.slice(1)}`;
  }
  return LABELS[path] ?? wordsOf(path);
}

/** Row numbers as a short list: `1–5`, `2, 4, 7–9`. */
function rowList(rows: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] === rows[j]! + 1) j += 1;
    parts.push(j - i >= 2 ? `${rows[i]}–${rows[j]}` : rows.slice(i, j + 1).join(', '));
    i = j;
  }
  return parts.join(', ');
}

function valueOf(member: unknown): CellValue {
  if (member === undefined || member === null) return null;
  if (typeof member === 'number') return member;
  if (typeof member === 'boolean') return member ? 'yes' : 'no';
  if (Array.isArray(member)) {
    const items = member as unknown[];
    return items.every((each): each is number => typeof each === 'number') ? rowList(items) : items.map(String).join(', ');
  }
  return textCell(member);
}

function summaryRows(value: object, prefix = ''): { path: string; label: string; value: CellValue }[] {
  return Object.entries(value).flatMap(([key, member]) => {
    const path = `${prefix}${key}`;
    if (member !== null && typeof member === 'object' && !Array.isArray(member)) return summaryRows(member as object, `${path}.`);
    return [{ path, label: labelOf(path), value: valueOf(member) }];
  });
}

/** The `summary` sheet: the run summary as `--report` has it, one member a row, in words. */
export function addSummarySheet(workbook: stream.xlsx.WorkbookWriter, summary: object): void {
  const sheet = workbook.addWorksheet('summary', { views: [{ state: 'frozen', ySplit: 1 }] });
  const rows = summaryRows(summary);
  sheet.getColumn(1).width = Math.max(10, ...rows.map(({ label }) => label.length + 2));
  sheet.getColumn(2).width = 60;
  sheet.addRow(['Run summary', 'Value']).commit();
  for (const { path, label, value } of rows) {
    const row = sheet.addRow([label, value]);
    if (MONEY.has(path)) row.getCell(2).numFmt = DOLLARS.cents;
    row.commit();
  }
  sheet.commit();
}
