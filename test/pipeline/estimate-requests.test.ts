import { describe, expect, it } from 'vitest';
import { estimateRun } from '../../src/pipeline/estimate.js';
import type { InputRow, PreparedItem } from '../../src/input/row.js';
import { runMain } from '../helpers/run-main.js';
import { PROPERTY_VALUE } from '../helpers/fake-pipeline.js';
import { mgetTarget, parseComponents } from '../../src/model/query-target.js';

async function* rowsOf(count: number): AsyncGenerator<InputRow> {
  for (let row = 1; row <= count; row++) {
    await Promise.resolve();
    yield { row, line: row + 1, columns: { address: `${row} Main St`, zipcode: '21204' } };
  }
}

const prepare = (row: InputRow): PreparedItem => ({
  row: row.row,
  columns: row.columns,
  item: { address: String(row.columns.address), zipcode: '21204' },
});

const settings = {
  target: PROPERTY_VALUE,
  batchSize: 100,
  dedupeCapacity: 1000,
  sectionPrices: { 'property/value': 0.25 },
  ratePerMinute: 250,
};
const MGET_OF_3 = mgetTarget(parseComponents('property/value,property/rental_value,property/school'));

describe('estimate: requests as the run sends them', () => {
  it('counts the first, small request that learns the rate limit', async () => {
    const estimate = await estimateRun(rowsOf(52), prepare, { ...settings, probeComponents: 10 });
    expect(estimate.requests).toBe(2);
    expect(estimate.probeItems).toBe(10);
    expect((await estimateRun(rowsOf(250), prepare, { ...settings, probeComponents: 10 })).requests).toBe(4);
  });

  it('adds nothing when the first batch fits in the probe, or the windows are known', async () => {
    expect((await estimateRun(rowsOf(8), prepare, { ...settings, probeComponents: 10 })).requests).toBe(1);
    expect((await estimateRun(rowsOf(52), prepare, settings)).requests).toBe(1);
  });

  it('probes with whole items: 3 of an mget of 3 components', async () => {
    const estimate = await estimateRun(rowsOf(52), prepare, { ...settings, target: MGET_OF_3, probeComponents: 10 });
    expect(estimate.probeItems).toBe(3);
    expect(estimate.requests).toBe(2);
  });

  it('prints JSON with --json', async () => {
    const result = await runMain(['estimate', 'property/value', '--input', 'samples/addresses.csv', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout) as unknown).toMatchObject({
      rows: 53,
      invalidRows: 1,
      uniqueItems: 52,
      requests: 2,
      probeItems: 10,
      expectedCostUsd: 13,
    });
  });
});
