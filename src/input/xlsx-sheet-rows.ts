import { createReadStream, type ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { ReadProgress } from './read-progress.js';
import { open } from 'node:fs/promises';
import type { Row } from 'exceljs';
import ExcelJS from 'exceljs';
import { InputError, PropdataError, UsageError } from '../errors/index.js';

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** An OLE2 container: an encrypted (password-protected) workbook, or an old .xls one. */
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** The parts of exceljs's streaming reader its typings leave out. */
interface SheetReader extends AsyncIterable<Row> {
  id: number | string;
  name: string;
}
interface BookReader extends AsyncIterable<SheetReader> {
  /** workbook.xml, once read: the sheets in tab order. */
  model?: { sheets?: { id: number; name: string }[] };
}

const unreadable = (path: string, reason: string, cause?: unknown) =>
  new InputError('E_XLSX_UNREADABLE', `cannot read ${path} as an xlsx workbook: ${reason}`, { cause });

/** Refuses, before exceljs sees it, a file that is no workbook it can read, with the way out. */
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

/** Reads rows to the end and keeps none. */
async function readThrough(rows: AsyncIterable<unknown>): Promise<void> {
  const iterator = rows[Symbol.asyncIterator]();
  while (!(await iterator.next()).done) {
    // Discarded: only the reading matters (sheetRows).
  }
}

/**
 * Makes the zip exceljs reads entries from end only once every entry it parsed has been read.
 * unzipper's Parse, which exceljs pipes the file into, emits 'end' as soon as it has parsed the
 * zip's last record, while entries it parsed may still wait in its buffer; exceljs stops at that
 * 'end' and never sees them. A workbook storing its sheets before its shared strings, styles and
 * workbook.xml (exceljs writes them so) then read as blank cells, dates as numbers and unknown
 * sheet names: with 30 small sheets nearly every time, with two about once in 200 reads under
 * load. The stream's own 'end', once its buffer is read, still comes.
 */
function endZipWhenRead(source: ReadStream): void {
  const pipe = source.pipe.bind(source);
  source.pipe = <T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T => {
    const zip = destination as unknown as Readable;
    const emit = zip.emit.bind(zip);
    zip.emit = (event: string | symbol, ...args: unknown[]) => (event === 'end' && !zip.readableEnded ? false : emit(event, ...args));
    return pipe(destination, options);
  };
}

/** `--sheet`: a name, else a position from 1 in tab order. */
function wanted(sheet: string | undefined): { name?: string; position: number } {
  if (sheet === undefined) return { position: 1 };
  return /^\d+$/.test(sheet) && Number(sheet) >= 1 ? { name: sheet, position: Number(sheet) } : { name: sheet, position: 0 };
}

/**
 * The rows of one sheet, read with exceljs's streaming reader: `--sheet NAME|N`, else the first
 * in tab order. Sheets come in the order the zip stores them; the tab order is known from
 * workbook.xml, which exceljs has read by then for the files Excel, LibreOffice and exceljs write
 * (it keeps a sheet stored before the shared strings in a temporary file until they are read);
 * otherwise the storage order stands in. Failures are one InputError (exit 1); a sheet that is not
 * there is a usage error naming the sheets there are.
 */
export async function* sheetRows(path: string, sheet: string | undefined, progress?: ReadProgress): AsyncGenerator<Row> {
  await checkSignature(path);
  const want = wanted(sheet);
  const source = createReadStream(path);
  endZipWhenRead(source);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(source, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // Styles carry the number formats that tell a date from a number.
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  }) as unknown as BookReader;
  // exceljs reads a sheet stored after the shared strings at once, taking workbook.xml as read
  // (its issue 962): a workbook that stores workbook.xml last would fail on its first sheet. Empty
  // stand-ins until workbook.xml replaces them; such a sheet is then known by its storage order.
  Object.assign(reader, { model: {}, properties: {} });
  const seen: string[] = [];
  try {
    let stored = 0;
    for await (const each of reader) {
      stored += 1;
      seen.push(each.name);
      const tabs = reader.model?.sheets;
      const position = tabs ? tabs.findIndex((tab) => tab.id === each.id) + 1 : stored;
      // A sheet named "2" is that sheet, before the second one.
      const named = tabs?.some((tab) => tab.name === want.name) ?? false;
      if (each.name === want.name || (position === want.position && !named)) {
        if (!progress) {
          yield* each;
          return;
        }
        // The file's bytes read so far: exceljs reads ahead, so this is only close to the row's.
        for await (const row of each) {
          progress.bytesRead = source.bytesRead;
          yield row;
        }
        return;
      }
      // A sheet passed over is read through. exceljs keeps a sheet stored before the shared
      // strings in a temporary file and deletes it as soon as the reader moves on; the sheet's
      // file stream, not yet open, then failed with an uncaught ENOENT after the run had moved on.
      await readThrough(each);
    }
  } catch (error) {
    if (error instanceof PropdataError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    // unzipper's word for a zip that stops before its end.
    throw unreadable(path, reason === 'FILE_ENDED' ? 'it ends before the workbook does (a copy cut short?)' : reason, error);
  } finally {
    source.destroy();
  }
  const names = reader.model?.sheets?.map((tab) => tab.name) ?? seen;
  if (sheet === undefined) throw unreadable(path, 'it has no sheet');
  if (names.includes(sheet)) {
    throw new UsageError(
      `--sheet ${sheet}: ${path} names its sheets only after their rows; give the sheet's position instead`,
      'E_USAGE_SHEET',
    );
  }
  throw new UsageError(
    `--sheet ${sheet}: ${path} has no such sheet; its sheets are ${names.map((name) => `"${name}"`).join(', ')}`,
    'E_USAGE_SHEET',
  );
}
