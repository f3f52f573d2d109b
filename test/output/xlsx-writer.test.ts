import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { OutputRecord } from '../../src/model/record.js';
import { csvColumns } from '../../src/output/csv-columns.js';
import { openOutput, outputFormatFor, type OutputSettings } from '../../src/output/open-output.js';
import { createXlsxWriter, type XlsxSettings } from '../../src/output/xlsx-writer.js';

const SECTIONS = ['property/census', 'property/listing_status', 'property/value'];
const SHAPE = { inputColumns: ['address', 'zip', 'units', 'note'], level: 'property' as const, sections: SECTIONS, withMeta: false };

function answered(row: number, input: Record<string, string>): OutputRecord {
  return {
    row,
    status: 'ok',
    input,
    chunk: {
      address_info: {
        address: '1 Main St',
        zipcode: '02134',
        block_id: '060376703241005',
        county_fips: '06037',
        msa: null,
        lat: 42.35,
        status: { match: true, details: ['a', 'b'], requested_item: {}, changes: [], errors: [] },
      },
      // A service that sends digits as a number: the cell is still text, zeros restored.
      'property/census': { api_code: 0, result: { fips: 6037, tract: '06037670324', block: '060376703241005' } },
      'property/listing_status': {
        api_code: 0,
        result: { listing_date: '2024-03-01', listing_price: 650000, has_price_considerations: true },
      },
      'property/value': { api_code: 0, result: { value: { price_mean: 712345.5, fsd: 0.08 } } },
    },
  };
}

function tempPath(name: string): string {
  return join(mkdtempSync(join(tmpdir(), 'propdata-xlsx-')), name);
}

async function writeWorkbook(records: OutputRecord[], settings: Partial<XlsxSettings> = {}, summary: object = { outcome: 'completed' }) {
  const path = tempPath('out.xlsx');
  const writer = await createXlsxWriter({ ...SHAPE, path, stdout: new PassThrough(), sheets: 'records', ...settings });
  for (const record of records) await writer.write(record);
  await writer.close();
  await writer.finish!(summary);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return { path, workbook };
}

/** A row's values across the header's width, empty cells as null. */
const cellsOf = (sheet: ExcelJS.Worksheet, row: number) =>
  Array.from({ length: sheet.getRow(1).cellCount }, (_, i) => sheet.getRow(row).getCell(i + 1).value);

describe('xlsx output', () => {
  it('is chosen by an --output ending in .xlsx, and by --format xlsx', () => {
    expect(outputFormatFor('out.XLSX', undefined)).toBe('xlsx');
    expect(outputFormatFor('out.bin', 'xlsx')).toBe('xlsx');
  });

  it("has the CSV output's columns in the same order, a frozen header and an autofilter", async () => {
    const { workbook } = await writeWorkbook([answered(1, { address: '1 Main St', zip: '2134', units: '3', note: 'x' })]);
    const sheet = workbook.getWorksheet('records')!;
    expect(cellsOf(sheet, 1)).toEqual(csvColumns(SHAPE).map((column) => column.header));
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).toBeTruthy();
    expect(sheet.getColumn(1).width).toBeGreaterThanOrEqual(9);
  });

  it('types cells by the catalog: numbers, text identifiers, dates, booleans, JSON lists, empty nulls', async () => {
    const { workbook } = await writeWorkbook([answered(1, { address: '1 Main St', zip: '02134', units: '3', note: 'x' })]);
    const sheet = workbook.getWorksheet('records')!;
    const headers = cellsOf(sheet, 1) as string[];
    const cell = (header: string) => sheet.getRow(2).getCell(headers.indexOf(header) + 1);
    expect(cell('_row').value).toBe(1);
    expect(cell('address_info.zipcode').value).toBe('02134');
    expect(cell('address_info.block_id').value).toBe('060376703241005');
    expect(cell('address_info.county_fips').value).toBe('06037');
    expect(cell('address_info.msa').value).toBeNull();
    expect(cell('address_info.lat').value).toBe(42.35);
    expect(cell('address_info.status.match').value).toBe(true);
    expect(cell('address_info.status.details').value).toBe('["a","b"]');
    expect(cell('property/census.fips').value).toBe('06037');
    expect(cell('property/census.tract').value).toBe('06037670324');
    expect(cell('property/listing_status.listing_date').value).toEqual(new Date(Date.UTC(2024, 2, 1)));
    expect(cell('property/listing_status.listing_price').value).toBe(650000);
    expect(cell('property/listing_status.has_price_considerations').value).toBe(true);
    expect(cell('property/value.value.price_mean').value).toBe(712345.5);
    expect(cell('property/value.api_code').value).toBe(0);
  });

  it('keeps identifier and leading-zero input columns text, and makes number columns numbers', async () => {
    const records = [
      answered(1, { address: '1 Main St', zip: '2134', units: '3', note: '007' }),
      answered(2, { address: '2 Main St', zip: '02134', units: '12', note: '7' }),
    ];
    const { workbook } = await writeWorkbook(records);
    const sheet = workbook.getWorksheet('records')!;
    expect(cellsOf(sheet, 2).slice(0, 4)).toEqual(['1 Main St', '2134', 3, '007']);
    expect(cellsOf(sheet, 3).slice(0, 4)).toEqual(['2 Main St', '02134', 12, '7']);
  });

  it('writes the summary sheet as the report has it, in words', async () => {
    const summary = { records: { ok: 2, error: 0 }, requests: 1, outcome: 'completed' };
    const { workbook } = await writeWorkbook([answered(1, { address: 'a', zip: '1', units: '', note: '' })], {}, summary);
    const sheet = workbook.getWorksheet('summary')!;
    expect([2, 3, 4, 5].map((row) => cellsOf(sheet, row))).toEqual([
      ['Rows answered (ok)', 2],
      ['Rows that failed (error)', 0],
      ['Requests sent', 1],
      ['Outcome', 'completed'],
    ]);
  });

  it('continues past the row limit on a next sheet', async () => {
    const records = Array.from({ length: 5 }, (_, i) => answered(i + 1, { address: `${i}`, zip: '1', units: '', note: '' }));
    const { workbook } = await writeWorkbook(records, { maxRowsPerSheet: 2 });
    expect(workbook.worksheets.map((sheet) => [sheet.name, sheet.rowCount])).toEqual([
      ['records', 3],
      ['records (2)', 3],
      ['records (3)', 2],
      ['summary', 2],
    ]);
    expect(workbook.getWorksheet('records (3)')!.getRow(2).getCell(5).value).toBe(5);
  });

  it('with --sheets endpoint, has a sheet per endpoint keyed by the input columns and _row, and removes its spool', async () => {
    const records = [
      answered(1, { address: 'a', zip: '1', units: '', note: '' }),
      answered(2, { address: 'b', zip: '2', units: '', note: '' }),
    ];
    const { path, workbook } = await writeWorkbook(records, { sheets: 'endpoint' });
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['address_info', 'census', 'listing_status', 'value', 'summary']);
    expect(cellsOf(workbook.getWorksheet('value')!, 1)).toEqual([
      'address',
      'zip',
      'units',
      'note',
      '_row',
      'property/value.api_code',
      'property/value.value.price_mean',
      'property/value.value.price_upr',
      'property/value.value.price_lwr',
      'property/value.value.fsd',
    ]);
    expect(cellsOf(workbook.getWorksheet('value')!, 3)).toEqual(['b', '2', null, null, 2, 0, 712345.5, null, null, 0.08]);
    expect(cellsOf(workbook.getWorksheet('address_info')!, 1).slice(4, 8)).toEqual([
      '_row',
      '_status',
      '_error',
      'address_info.address_full',
    ]);
    expect(readdirSync(join(path, '..'))).toEqual(['out.xlsx']);
  });

  it('writes a header-only sheet when there are no records', async () => {
    const { workbook } = await writeWorkbook([]);
    expect(workbook.getWorksheet('records')!.rowCount).toBe(1);
  });

  it('refuses --sheets endpoint for another format, and a workbook on a terminal', async () => {
    const base: OutputSettings = { ...SHAPE, stdout: new PassThrough(), append: false, excel: false };
    await expect(openOutput({ ...base, path: tempPath('out.csv'), sheets: 'endpoint' })).rejects.toThrow(
      /--sheets endpoint lays out a workbook/,
    );
    const terminal = Object.assign(new PassThrough(), { isTTY: true });
    await expect(openOutput({ ...base, format: 'xlsx', stdout: terminal })).rejects.toThrow(/xlsx workbook is binary/);
  });
});
