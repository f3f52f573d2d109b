import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { OutputRecord } from '../../src/model/record.js';
import { createXlsxWriter, type XlsxSettings } from '../../src/output/xlsx-writer.js';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/** A workbook as a spreadsheet user reads it: ISO dates, dollars with thousands separators, names in words. */
const SHAPE = {
  inputColumns: ['address', 'zipcode', 'bought'],
  level: 'property' as const,
  sections: ['property/value', 'property/listing_status'],
  withMeta: false,
};

function record(row: number): OutputRecord {
  return {
    row,
    status: 'ok',
    input: { address: `${row} Main St`, zipcode: '02134', bought: '2010-01-01' },
    chunk: {
      address_info: { address: `${row} Main St`, zipcode: '02134' },
      'property/value': {
        api_code: 0,
        result: { value: { price_mean: 1_250_000, price_upr: 1_300_000, price_lwr: 1_200_000, fsd: 0.08 } },
      },
      'property/listing_status': { api_code: 0, result: { listing_date: '2024-03-01', listing_price: 650_000 } },
    },
  };
}

const tempPath = (name: string) => join(mkdtempSync(join(tmpdir(), 'propdata-sheet-')), name);

async function workbookOf(settings: Partial<XlsxSettings>, rows = 3, summary: object = { outcome: 'completed' }) {
  const path = tempPath('out.xlsx');
  const writer = await createXlsxWriter({ ...SHAPE, path, stdout: new PassThrough(), sheets: 'records', ...settings });
  for (let row = 1; row <= rows; row++) await writer.write(record(row));
  await writer.close();
  await writer.finish!(summary);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return workbook;
}

function column(sheet: ExcelJS.Worksheet, header: string): ExcelJS.Cell {
  const headers = sheet.getRow(1).values as unknown[];
  return sheet.getRow(2).getCell(headers.indexOf(header));
}

describe('xlsx output that reads as a spreadsheet', () => {
  const sandbox = sandboxPerTest();

  it('shows dates as ISO dates and dollars with thousands separators, as the catalog says which fields are dollars', async () => {
    const sheet = (await workbookOf({})).getWorksheet('records')!;
    for (const header of ['bought', 'property/listing_status.listing_date']) {
      expect(column(sheet, header).value, header).toBeInstanceOf(Date);
      expect(column(sheet, header).numFmt, header).toBe('yyyy-mm-dd');
    }
    for (const header of ['property/value.value.price_mean', 'property/listing_status.listing_price']) {
      expect(typeof column(sheet, header).value, header).toBe('number');
      expect(column(sheet, header).numFmt, header).toBe('#,##0');
    }
    // Not dollars: a share, a row number.
    expect(column(sheet, 'property/value.value.fsd').numFmt).toBeUndefined();
    expect(column(sheet, '_row').numFmt).toBeUndefined();
    expect(column(sheet, 'zipcode').value).toBe('02134');
  });

  it('names columns in words with --short-names, on one sheet and on each endpoint sheet', async () => {
    const records = (await workbookOf({ shortNames: true })).getWorksheet('records')!;
    const headers = (records.getRow(1).values as string[]).slice(1);
    expect(headers).toEqual(
      expect.arrayContaining([
        'address',
        'zipcode',
        'value_price_mean',
        'value_fsd',
        'listing_status_listing_price',
        'address_info_zipcode',
      ]),
    );
    expect(headers.some((header) => header.includes('.') || header.includes('/'))).toBe(false);
    expect(new Set(headers).size).toBe(headers.length);
    const byEndpoint = await workbookOf({ shortNames: true, sheets: 'endpoint' });
    expect((byEndpoint.getWorksheet('value')!.getRow(1).values as string[]).slice(1)).toEqual([
      'address',
      'zipcode',
      'bought',
      '_row',
      'api_code',
      'price_mean',
      'price_upr',
      'price_lwr',
      'fsd',
    ]);
    // The default stays the dotted paths.
    expect((await workbookOf({})).getWorksheet('records')!.getRow(1).values).toContain('property/value.value.price_mean');
  });

  it('writes the summary sheet in words, first rows as a short list', async () => {
    const summary = {
      records: { ok: 7, error: 0 },
      recordsThisRun: { ok: 3 },
      partlyFromStore: 2,
      retriedPossiblyCharged: 1,
      costUsd: 1234.5,
      outcome: 'completed',
      inputRepairs: { identifierCells: 5, firstRows: [1, 2, 4, 7, 8, 9], example: 'zipcode 2134 → 02134' },
      somethingNew: 3,
    };
    const sheet = (await workbookOf({}, 1, summary)).getWorksheet('summary')!;
    const rows = sheet.getSheetValues().slice(2) as unknown[][];
    expect(rows.map((row) => [row[1], row[2]])).toEqual([
      ['Rows answered (ok)', 7],
      ['Rows that failed (error)', 0],
      ['This run: rows answered (ok)', 3],
      ['Items answered in part from the local store', 2],
      ['Retried requests the service may also have charged', 1],
      ['Cost at list price (USD)', 1234.5],
      ['Outcome', 'completed'],
      ['Identifier cells that were numbers, made text again', 5],
      ['First rows repaired', '1, 2, 4, 7–9'],
      ['Example of a repair', 'zipcode 2134 → 02134'],
      ['Something new', 3],
    ]);
    expect(sheet.getRow(7).getCell(2).numFmt).toBe('#,##0.00');
  });

  it('waits on one drain listener however many rows arrive at once: no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const writer = await createXlsxWriter({ ...SHAPE, path: tempPath('burst.xlsx'), stdout: new PassThrough(), sheets: 'records' });
      const waits: Promise<void>[] = [];
      // A run hands the writer a batch's records together; each wait used to add its own listener.
      for (let row = 1; row <= 3_000; row++) {
        const wait = writer.write(record(row));
        if (wait) waits.push(wait);
      }
      await Promise.all(waits);
      await writer.close();
      await writer.finish!({ outcome: 'completed' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(waits.length).toBeGreaterThan(0);
      expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  // openpyxl, the reader pandas uses, when this machine has it (Debian's python3-openpyxl): CI's
  // clean machine does not, and the checks above read the same workbook back with exceljs.
  const python = ['/usr/bin/python3', 'python3'].find((each) => spawnSync(each, ['-c', 'import openpyxl']).status === 0);
  it.skipIf(python === undefined)(
    'reads back in openpyxl: ISO dates, numbers as numbers, identifiers as text (skipped without python3-openpyxl)',
    async () => {
      const env = await sandbox.start();
      const output = tempPath('homes.xlsx');
      const run = await runMain(
        ['mget', 'property/value,property/rental_value', '--input', 'test/fixtures/workbooks/xlsxwriter.xlsx', '--output', output],
        { env },
      );
      expect(run.code, run.stderr).toBe(0);
      const script = [
        'import json, sys, openpyxl',
        'sheet = openpyxl.load_workbook(sys.argv[1])["records"]',
        'header = [cell.value for cell in sheet[1]]',
        'row = {h: c for h, c in zip(header, sheet[3])}',
        'pick = ["zipcode", "bought", "price", "address_info.zipcode", "property/value.value.price_mean", "_row"]',
        'print(json.dumps({h: [type(row[h].value).__name__, str(row[h].value), row[h].number_format] for h in pick}))',
      ].join('\n');
      const read = spawnSync(python!, ['-c', script, output], { encoding: 'utf8' });
      expect(read.stderr).toBe('');
      const cells = JSON.parse(read.stdout) as Record<string, [string, string, string]>;
      expect(cells.zipcode).toEqual(['str', '06040', 'General']);
      expect(cells['address_info.zipcode']).toEqual(['str', '06040', 'General']);
      expect(cells.bought).toEqual(['datetime', '2015-06-30 00:00:00', 'yyyy-mm-dd']);
      expect(cells.price).toEqual(['int', '310500', 'General']);
      expect(cells['property/value.value.price_mean']![0]).toBe('int');
      expect(cells['property/value.value.price_mean']![2]).toBe('#,##0');
      expect(cells._row).toEqual(['int', '2', 'General']);
    },
  );
});
