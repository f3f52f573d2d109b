import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { findEndpoint } from '../../src/catalog/index.js';
import { InputError, UsageError } from '../../src/errors/index.js';
import { openInput } from '../../src/input/open-input.js';
import { createPreparer } from '../../src/input/prepare.js';
import type { InputRow } from '../../src/input/row.js';
import type { IdentifierSettings } from '../../src/input/xlsx-identifiers.js';
import { resolveTarget } from '../../src/input/xlsx-package.js';

const VALUE = findEndpoint('property/value')!;
const PROPERTY: IdentifierSettings = { level: 'property', endpoints: [VALUE], map: {} };
const BLOCK: IdentifierSettings = { level: 'block', endpoints: [], map: {} };

const tempPath = (name: string) => join(mkdtempSync(join(tmpdir(), 'propdata-xlsx-in-')), name);

/** A workbook as an analyst's spreadsheet holds it, written with exceljs's non-streaming API. */
async function homesWorkbook(): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  const homes = workbook.addWorksheet('homes');
  homes.addRow(['address', 'Zip', 'bought', 'price', 'double', 'moved_in', 'owner', 'note', '', 'flag']);
  homes.addRow([
    '1 Main St',
    2134,
    new Date(Date.UTC(2024, 2, 1)),
    450000.5,
    { formula: 'D2*2', result: 901001 },
    { formula: 'C2+1', result: 45353 },
    'Ann',
    { richText: [{ text: 'rich ' }, { font: { bold: true }, text: 'text' }] },
    'x',
    true,
  ]);
  homes.getCell('F2').numFmt = 'yyyy-mm-dd';
  homes.addRow([]);
  homes.addRow([
    '2 Elm St',
    '02134',
    new Date(Date.UTC(2024, 2, 1, 9, 30)),
    0.1 + 0.2,
    { formula: 'D4*2' },
    null,
    'Bo',
    null,
    null,
    false,
    'stray',
  ]);
  homes.addRow(['3 Oak St', 501, null, Number('12345678901234567890'), null, null, null, null, null, null]);
  const blocks = workbook.addWorksheet('blocks');
  blocks.addRow(['block_id', 'population']);
  blocks.addRow([60376703241005, 12]);
  blocks.addRow([603767000000000, 7]);
  blocks.addRow(['060376703241005', 3]);
  const path = tempPath('homes.xlsx');
  await workbook.xlsx.writeFile(path);
  return path;
}

async function readAll(path: string, options: { sheet?: string; identifiers?: IdentifierSettings } = {}) {
  const input = await openInput({ path, stdin: new PassThrough(), ...options });
  const columns = await input.columns;
  const rows: InputRow[] = [];
  for await (const row of input.rows) rows.push(row);
  return { input, columns, rows };
}

describe('xlsx input', () => {
  it('reads the first sheet: header as for CSV, formulas by their cached value, dates as ISO dates, blank rows skipped', async () => {
    const { columns, rows, input } = await readAll(await homesWorkbook(), { identifiers: PROPERTY });
    expect(input.format).toBe('xlsx');
    expect(columns).toEqual(['address', 'Zip', 'bought', 'price', 'double', 'moved_in', 'owner', 'note', 'Unnamed: 8', 'flag']);
    expect(rows.map((row) => [row.row, row.line])).toEqual([
      [1, 2],
      [2, 4],
      [3, 5],
    ]);
    expect({ ...rows[0]!.columns }).toEqual({
      address: '1 Main St',
      // A ZIP's zero is the preparer's to put back, by the row's state (as for CSV).
      Zip: '2134',
      bought: '2024-03-01',
      price: '450000.5',
      double: '901001',
      moved_in: '2024-03-02',
      owner: 'Ann',
      note: 'rich text',
      'Unnamed: 8': 'x',
      flag: 'TRUE',
    });
    expect(rows[0]!.readError).toBeUndefined();
    expect({ ...rows[1]!.columns }).toMatchObject({ Zip: '02134', bought: '2024-03-01T09:30:00', price: '0.3', double: '', flag: 'FALSE' });
    expect(rows[1]!.readError).toMatch(/column K holds "stray" but has no header/);
    expect(rows[2]!.columns.Zip).toBe('501');
    expect(rows[2]!.columns.price).toBe('1.23456789012346E+19');
  });

  it('counts the identifier cells made text again, with the first rows they touched; a ZIP is left to the state', async () => {
    const path = await homesWorkbook();
    const { input } = await readAll(path, { sheet: 'blocks', identifiers: BLOCK });
    expect(input.repairs?.report()).toEqual({
      identifierCells: 1,
      firstRows: [1],
      example: 'block_id 60376703241005 → 060376703241005',
    });
    expect(input.repairs?.describe()).toMatch(
      /^propdata: 1 identifier cell was a number in the workbook .*\(block_id 60376703241005 → 060376703241005\); row 1$/,
    );
    expect((await readAll(path, { identifiers: PROPERTY })).input.repairs?.report()).toBeUndefined();
  });

  it('leaves numbers alone where the column feeds no identifier', async () => {
    const { rows } = await readAll(await homesWorkbook());
    expect(rows[0]!.columns.Zip).toBe('2134');
  });

  it('chooses a sheet by name or position; a block id lost to scientific notation gets the CSV path refusal', async () => {
    const path = await homesWorkbook();
    const byName = await readAll(path, { sheet: 'blocks', identifiers: BLOCK });
    const byPosition = await readAll(path, { sheet: '2', identifiers: BLOCK });
    expect(byPosition.rows.map((row) => row.columns.block_id)).toEqual(byName.rows.map((row) => row.columns.block_id));
    expect(byName.rows.map((row) => row.columns.block_id)).toEqual(['060376703241005', '6.03767E+14', '060376703241005']);
    const prepare = createPreparer({ level: 'block', endpoints: [findEndpoint('block/hcri')!], fixedParams: {}, map: {} });
    expect(prepare(byName.rows[0]!).item).toMatchObject({ block_id: '060376703241005' });
    expect(prepare(byName.rows[1]!).invalid).toMatch(/a spreadsheet turned it into a number; format the column as text/);
  });

  it('names the sheets there are when --sheet names none (exit 2)', async () => {
    const error = await readAll(await homesWorkbook(), { sheet: 'nope' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/--sheet nope: .* has no such sheet; its sheets are "homes", "blocks"/);
  });

  it('refuses a password-protected workbook, and a file that is no workbook, in one line (exit 1)', async () => {
    const locked = tempPath('locked.xlsx');
    writeFileSync(locked, Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]));
    const error = await readAll(locked).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect(exitCodeFor(error)).toBe(1);
    expect((error as InputError).message).toMatch(/^cannot read .*locked\.xlsx as an xlsx workbook: it is password-protected/);
    const text = tempPath('text.xlsx');
    writeFileSync(text, 'address\n1 Main St\n');
    await expect(readAll(text)).rejects.toThrow(/it is not a zip archive/);
  });

  it('refuses a header naming a column twice, and a workbook from a pipe', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('a').addRow(['zipcode', 'zipcode']);
    const path = tempPath('twice.xlsx');
    await workbook.xlsx.writeFile(path);
    await expect(readAll(path)).rejects.toThrow(/sheet row 1: the header names column "zipcode" twice \(columns A and B\)/);
    await expect(openInput({ path: '-', format: 'xlsx', stdin: new PassThrough() })).rejects.toThrow(/an xlsx input must be a file/);
  });

  it('reads a sheet that comes after many others and leaves nothing failing behind', async () => {
    // exceljs's streaming reader, used until the reader opened parts through the zip's directory,
    // kept each sheet stored before the shared strings in a temporary file, deleted as it moved
    // on: a sheet passed over could fail later with an uncaught ENOENT (seen under load, in CI).
    const workbook = new ExcelJS.Workbook();
    for (let i = 1; i <= 30; i++) {
      const sheet = workbook.addWorksheet(`s${i}`);
      sheet.addRow(['address', 'zipcode']);
      for (let row = 0; row < 50; row++) sheet.addRow([`${row} Sheet ${i} St`, '02134']);
    }
    const path = join(mkdtempSync(join(tmpdir(), 'propdata-xlsx-')), 'many.xlsx');
    await workbook.xlsx.writeFile(path);
    const failures: unknown[] = [];
    const onFailure = (error: unknown) => failures.push(error);
    process.on('uncaughtException', onFailure);
    try {
      const { rows } = await readAll(path, { sheet: 's30' });
      expect(rows).toHaveLength(50);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(failures).toEqual([]);
    } finally {
      process.off('uncaughtException', onFailure);
    }
  });

  it('reads any sheet of a workbook with many whole: shared strings, styles and tab names', async () => {
    // exceljs writes its sheets before the shared strings, styles and workbook.xml. Under
    // exceljs's own streaming reader (used until the reader opened parts through the zip's
    // directory), unzipper ended the zip with parts still unread: nearly every read of 30 small
    // sheets lost them (a blank header, "input is empty") or every sheet name.
    const workbook = new ExcelJS.Workbook();
    for (let i = 1; i <= 30; i++) {
      const sheet = workbook.addWorksheet(`s${i}`);
      sheet.addRow(['address', 'bought']);
      sheet.addRow([`${i} Main St`, new Date(Date.UTC(2024, 2, i))]);
      sheet.getCell('B2').numFmt = 'yyyy-mm-dd';
    }
    const path = tempPath('thirty.xlsx');
    await workbook.xlsx.writeFile(path);
    for (const [sheet, i] of [
      [undefined, 1],
      ['s30', 30],
      ['29', 29],
      [undefined, 1],
      ['s2', 2],
    ] as const) {
      const { columns, rows } = await readAll(path, sheet === undefined ? {} : { sheet });
      expect(columns).toEqual(['address', 'bought']);
      expect(rows.map((row) => ({ ...row.columns }))).toEqual([
        { address: `${i} Main St`, bought: `2024-03-${String(i).padStart(2, '0')}` },
      ]);
    }
  });

  it('counts its records for the progress total', async () => {
    const path = await homesWorkbook();
    for (const sheet of [undefined, 'blocks']) {
      const { input, rows } = await readAll(path, sheet === undefined ? {} : { sheet });
      expect(rows).toHaveLength(3);
      expect(input.progress).toMatchObject({ rowsRead: 3, done: true });
      expect(input.progress!.byteSize).toBeGreaterThan(0);
    }
  });

  it('resolves a relationship target as the format does: absolute, relative to its part, with .. and escapes', () => {
    expect(resolveTarget('/', 'xl/workbook.xml')).toBe('/xl/workbook.xml');
    expect(resolveTarget('/xl/workbook.xml', '/xl/worksheets/sheet1.xml')).toBe('/xl/worksheets/sheet1.xml');
    expect(resolveTarget('/xl/workbook.xml', 'worksheets/sheet1.xml')).toBe('/xl/worksheets/sheet1.xml');
    expect(resolveTarget('/xl/workbook.xml', './worksheets/../sharedStrings.xml')).toBe('/xl/sharedStrings.xml');
    expect(resolveTarget('/xl/workbook2.xml', 'worksheets/my%20sheet.xml')).toBe('/xl/worksheets/my sheet.xml');
  });
});
