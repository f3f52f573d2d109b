import { open } from 'node:fs/promises';
import type { SaxesTagPlain } from 'saxes';
import { InputError, PropdataError, UsageError } from '../errors/index.js';
import type { ReadProgress } from './read-progress.js';
import { MAX_RECORD_BYTES } from './record-size.js';
import type { SheetCell } from './xlsx-cell-text.js';
import { NotAWorkbook, workbookParts, type SheetPart } from './xlsx-package.js';
import { sharedStrings, StringItem, TOO_LONG, unescapeText, type SharedString } from './xlsx-shared-strings.js';
import { dateStyles } from './xlsx-styles.js';
import { localName, parseXml } from './xlsx-xml.js';
import { openWorkbookZip, type WorkbookZip } from './xlsx-zip.js';

/** One row of a sheet: its number in the sheet, and its cells by column number (from 1). */
export interface SheetRow {
  number: number;
  cells: (SheetCell | undefined)[];
}

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** An OLE2 container: an encrypted (password-protected) workbook, or an old .xls one. */
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const unreadable = (path: string, reason: string, cause?: unknown) =>
  new InputError('E_XLSX_UNREADABLE', `cannot read ${path} as an xlsx workbook: ${reason}`, { cause });

/** A zip without its directory, a part that does not inflate or whose size is not the directory's, XML that stops halfway. */
function damaged(path: string, cause: unknown): InputError {
  const detail = cause instanceof Error ? ` (${cause.message})` : '';
  return unreadable(path, `it is damaged or cut short${detail}; save or copy it again and rerun`, cause);
}

/** Refuses a file that is no zip at all, with the way out, before the zip is opened. */
async function checkSignature(path: string): Promise<void> {
  const file = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(OLE2.length), 0, OLE2.length, 0);
    const head = buffer.subarray(0, bytesRead);
    if (head.equals(OLE2))
      throw unreadable(path, 'it is password-protected or an old .xls workbook; save it as .xlsx without a password and rerun');
    if (!head.subarray(0, ZIP.length).equals(ZIP))
      throw unreadable(path, 'it is not a zip archive; give an .xlsx saved by a spreadsheet program');
  } finally {
    await file.close();
  }
}

/** `A` is 1, `AA` 27: the column of a cell reference such as `AA12`. */
function columnOf(reference: string): number {
  let column = 0;
  for (let i = 0; i < reference.length; i++) {
    const code = reference.charCodeAt(i) & ~0x20;
    if (code < 65 || code > 90) break;
    column = column * 26 + code - 64;
  }
  return column;
}

/** `--sheet NAME|N` among the sheets in tab order: a name first (a sheet may be called "2"), then a position from 1. */
function chooseSheet(path: string, sheets: readonly SheetPart[], wanted: string | undefined): SheetPart {
  const names = sheets.map((each) => `"${each.name}"`).join(', ');
  const chosen =
    wanted === undefined
      ? (sheets.find((each) => each.kind === 'worksheet') ?? sheets[0])
      : (sheets.find((each) => each.name === wanted) ?? (/^[1-9]\d*$/.test(wanted) ? sheets[Number(wanted) - 1] : undefined));
  if (chosen === undefined && wanted === undefined) throw unreadable(path, 'it has no sheet');
  if (chosen === undefined) throw new UsageError(`--sheet ${wanted}: ${path} has no such sheet; its sheets are ${names}`, 'E_USAGE_SHEET');
  if (chosen.kind !== 'worksheet') {
    const which = wanted === undefined ? `its first sheet, "${chosen.name}",` : `sheet "${chosen.name}"`;
    throw new UsageError(
      `${path}: ${which} is a ${chosen.kind}, not a table of rows; choose one with --sheet (its sheets are ${names})`,
      'E_USAGE_SHEET',
    );
  }
  if (chosen.part === undefined)
    throw unreadable(path, `sheet "${chosen.name}" is named in the workbook but missing from the file; save it again`);
  return chosen;
}

/** How a cell's stored value becomes a SheetCell, with what the workbook's other parts tell. */
interface CellContext {
  strings: readonly SharedString[];
  isDate: (style: number) => boolean;
  date1904: boolean;
}

interface OpenCell {
  column: number;
  type: string;
  style: number;
  formula: boolean;
  value: string | undefined;
  inline: StringItem | undefined;
}

function cellTooLong(line: number): InputError {
  return new InputError(
    'E_XLSX_CELL_TOO_LARGE',
    `sheet row ${line}: a cell holds more than ${MAX_RECORD_BYTES / 1024 / 1024} MB of text, which no spreadsheet program writes ` +
      '(a cell holds at most 32,767 characters); the workbook is damaged or was not made by one. Rows before it were processed.',
    { line },
  );
}

function toCell(cell: OpenCell, context: CellContext, line: number): SheetCell | undefined {
  if (cell.inline) {
    const text = cell.inline.value();
    if (text === TOO_LONG) throw cellTooLong(line);
    return { kind: 'text', text };
  }
  const value = cell.value;
  // A cell with a style and no value, or a formula never calculated: nothing to show.
  if (value === undefined) return undefined;
  switch (cell.type) {
    case 's': {
      const text = context.strings[Number(value)];
      if (text === TOO_LONG) throw cellTooLong(line);
      return { kind: 'text', text: text ?? '' };
    }
    case 'str':
    case 'inlineStr':
      return { kind: 'text', text: unescapeText(value) };
    case 'b':
      return { kind: 'boolean', value: value.trim() === '1' || value.trim() === 'true' };
    case 'e':
      return { kind: 'error', code: value };
    case 'd':
      return { kind: 'date', iso: value.trim() };
    default: {
      const number = Number(value);
      if (value.trim() === '' || Number.isNaN(number)) return { kind: 'text', text: value };
      return { kind: 'number', value: number, date: context.isDate(cell.style), date1904: context.date1904 };
    }
  }
}

/**
 * A worksheet's rows as it streams. The `r` attributes of rows and cells are optional in the
 * format (a row without one follows the row before, a cell without one the cell before); only
 * the cells of `sheetData` count.
 */
async function* worksheetRows(zip: WorkbookZip, part: string, context: CellContext, progress?: ReadProgress): AsyncGenerator<SheetRow> {
  const ready: SheetRow[] = [];
  let inData = false;
  let row: SheetRow | undefined;
  let lastRow = 0;
  let lastColumn = 0;
  let cell: OpenCell | undefined;
  // Where text goes: the cell's value, or nowhere (a formula's text, anything else).
  let inValue = false;
  const line = () => row?.number ?? lastRow + 1;
  const handlers = {
    open(tag: SaxesTagPlain) {
      const name = localName(tag.name);
      if (name === 'sheetData') inData = true;
      else if (!inData) return;
      else if (name === 'row') {
        const r = Number(tag.attributes.r);
        lastRow = Number.isInteger(r) && r > 0 ? r : lastRow + 1;
        row = { number: lastRow, cells: [] };
        lastColumn = 0;
      } else if (name === 'c' && row) {
        const reference = tag.attributes.r;
        const column = reference === undefined ? 0 : columnOf(reference);
        lastColumn = column > 0 ? column : lastColumn + 1;
        const style = Number(tag.attributes.s ?? 0);
        cell = { column: lastColumn, type: tag.attributes.t ?? 'n', style, formula: false, value: undefined, inline: undefined };
      } else if (!cell) return;
      else if (name === 'v') {
        inValue = true;
        cell.value = '';
      } else if (name === 'f') cell.formula = true;
      else if (name === 'is') cell.inline = new StringItem();
      else cell.inline?.open(name);
    },
    close(tagName: string) {
      const name = localName(tagName);
      if (name === 'sheetData') inData = false;
      else if (name === 'v') inValue = false;
      else if (name === 'c' && cell && row) {
        const value = toCell(cell, context, row.number);
        if (value !== undefined) row.cells[cell.column] = value;
        cell = undefined;
      } else if (name === 'row' && row) {
        ready.push(row);
        row = undefined;
      } else cell?.inline?.close(name);
    },
    text(text: string) {
      if (!cell) return;
      if (inValue) {
        const value = cell.value ?? '';
        if (value.length + text.length > MAX_RECORD_BYTES) throw cellTooLong(line());
        cell.value = value + text;
      } else if (cell.inline) {
        cell.inline.add(text);
        if (cell.inline.tooLong) throw cellTooLong(line());
      }
    },
    tooLong: () => {
      throw cellTooLong(line());
    },
  };
  const size = zip.size(part) ?? 0;
  let chars = 0;
  // A sheet's XML is nearly all ASCII: its characters stand for its bytes, and the share of the
  // sheet read, scaled to the file's size, for the share of the file's rows.
  const counted = progress && size > 0 ? (count: number) => (chars += count) : undefined;
  for await (const _ of parseXml(await zip.open(part), handlers, counted)) {
    if (progress && size > 0) progress.bytesRead = Math.min(progress.byteSize, Math.round((progress.byteSize * chars) / size));
    yield* ready;
    ready.length = 0;
  }
}

/**
 * The rows of one sheet: `--sheet NAME|N`, else the first worksheet in tab order. The workbook is
 * read as the format defines it (xlsx-package.ts): the sheet's part, the shared strings and the
 * styles are found through the relationships and read in that order, whatever order the zip
 * stores them in. Failures are one InputError (exit 1); a sheet that is not there is a usage
 * error naming the sheets there are.
 */
export async function* sheetRows(path: string, sheet: string | undefined, progress?: ReadProgress): AsyncGenerator<SheetRow> {
  await checkSignature(path);
  let zip: WorkbookZip | undefined;
  try {
    zip = await openWorkbookZip(path);
    const parts = await workbookParts(zip);
    const chosen = chooseSheet(path, parts.sheets, sheet);
    const context: CellContext = {
      strings: await sharedStrings(zip, parts.sharedStrings),
      isDate: await dateStyles(zip, parts.styles),
      date1904: parts.date1904,
    };
    yield* worksheetRows(zip, chosen.part!, context, progress);
  } catch (error) {
    if (error instanceof PropdataError) throw error;
    if (error instanceof NotAWorkbook) throw unreadable(path, error.message, error);
    throw damaged(path, error);
  } finally {
    zip?.close();
  }
}
