import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandbox = sandboxPerTest();

describe('identifiers a spreadsheet stripped of a leading zero', () => {
  it('are padded where the state says so, and each repair is counted in the summary and --report', async () => {
    const env = await sandbox.start();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-padding-'));
    const input = join(dir, 'in.csv');
    // Boston's 02120 lost its zero in a spreadsheet; a Maryland 2120 is no ZIP at all.
    writeFileSync(input, 'address,state,zipcode\n1 Main St,MA,2120\n2 Main St,MD,2120\n3 Main St,MA,02134\n');
    const report = join(dir, 'report.json');
    const result = await runMain(['property', 'value', '-i', input, '-o', join(dir, 'out.csv'), '--report', report], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/1 identifiers padded with the leading zero a spreadsheet had dropped \(rows 1\)/);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ paddedIdentifiers: { count: 1, firstRows: [1] } });
  });
});
