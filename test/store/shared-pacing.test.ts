import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { envFor, sandboxPerTest } from '../helpers/sandbox-per-test.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/propdata.js', import.meta.url));

/**
 * Two processes on one account and one store, against a window tighter than either would take
 * alone: the store's shared pacer holds them together to the window, so the service refuses
 * nothing. The compiled CLI as a user runs it (npm test builds dist/ first).
 */
describe('two runs sharing one store', () => {
  const sandbox = sandboxPerTest();

  it('fill a tight window together without a single 429', async () => {
    const env = await sandbox.start({ rateLimits: [{ limit: 20, periodSeconds: 1 }] });
    const dir = mkdtempSync(join(tmpdir(), 'propdata-shared-'));
    const store = join(dir, 'shared.db');
    const jobs = [0, 1].map((job) => {
      const input = join(dir, `in-${job}.csv`);
      const rows = Array.from({ length: 40 }, (_, i) => `${100 + i} Job${job} Street,9021${job}`);
      writeFileSync(input, `address,zipcode\n${rows.join('\n')}\n`);
      const args = [
        BIN,
        'property',
        'value',
        '-i',
        input,
        '-o',
        join(dir, `out-${job}.csv`),
        '--store',
        store,
        '--report',
        join(dir, `report-${job}.json`),
        '--quiet',
      ];
      return run(process.execPath, args, { env: { ...process.env, ...envFor(sandbox.current), ...env, NO_COLOR: '1' } });
    });
    await Promise.all(jobs);
    const reports = [0, 1].map(
      (job) =>
        JSON.parse(readFileSync(join(dir, `report-${job}.json`), 'utf8')) as { rateLimitWaits: number; records: Record<string, number> },
    );
    expect(reports.map((report) => report.rateLimitWaits)).toEqual([0, 0]);
    // 80 components at 20 a second: both ran, every row answered.
    expect(reports.map((report) => Object.values(report.records).reduce((a, b) => a + b, 0))).toEqual([40, 40]);
    expect(sandbox.current.usage().components).toBe(80);
  }, 60_000);
});
