import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const HOMES = 'samples/homes.xlsx';

describe("the analyst's round trip", () => {
  const sandbox = sandboxPerTest();

  it('reads homes.xlsx, writes a typed workbook with a summary sheet, and reports the ZIPs it repaired', async () => {
    const env = await sandbox.start();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-round-trip-'));
    const output = join(dir, 'homes-enriched.xlsx');
    const report = join(dir, 'report.json');
    const run = await runMain(['mget', 'property/value,property/rental_value', '--input', HOMES, '--output', output, '--report', report], {
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    // The ZIPs stored as numbers get their zero back by the row's state, as a CSV's do.
    expect(run.stderr).toMatch(/identifiers padded with the leading zero a spreadsheet had dropped \(rows 4,/);
    expect((JSON.parse(readFileSync(report, 'utf8')) as { paddedIdentifiers: unknown }).paddedIdentifiers).toMatchObject({
      firstRows: expect.arrayContaining([4]) as unknown,
    });

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(output);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['records', 'summary']);
    const records = workbook.getWorksheet('records')!;
    const headers = (records.getRow(1).values as string[]).slice(1);
    const column = (header: string) => headers.indexOf(header) + 1;
    const connecticut = records.getRow(5);
    expect(connecticut.getCell(column('zipcode')).value).toBe('6040');
    expect(connecticut.getCell(column('address_info.zipcode')).value).toBe('06040');
    expect(typeof connecticut.getCell(column('property/value.value.price_mean')).value).toBe('number');
    expect(connecticut.getCell(column('_row')).value).toBe(4);
    expect(records.rowCount).toBe(41);
    const summary = workbook.getWorksheet('summary')!;
    expect(summary.getRow(2).values).toEqual([undefined, 'Rows answered (ok)', expect.any(Number)]);
  });

  it('writes a workbook afresh under --resume, saying a workbook cannot be appended to', async () => {
    const env = await sandbox.start();
    const output = join(mkdtempSync(join(tmpdir(), 'propdata-round-trip-')), 'out.xlsx');
    const run = await runMain(['property', 'value', '--input', HOMES, '--output', output, '--resume'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /--resume: only a CSV or JSONL --output .* can be appended to \(not a pipe, a JSON array or a workbook\); writing .*out\.xlsx afresh/,
    );
    expect(existsSync(output)).toBe(true);
  });
});
