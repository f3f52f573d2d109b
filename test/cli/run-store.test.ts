import { describe, expect, it } from 'vitest';
import type { PendingItem } from '../../src/batching/batch.js';
import { openRunStore } from '../../src/cli/run-store.js';
import { targetForList } from '../../src/model/query-target.js';
import type { Exchange } from '../../src/pipeline/send-batch.js';
import { openStore } from '../../src/store/index.js';
import { FAKE_EPOCH } from '../helpers/fake-clock.js';
import { propertyChunk } from '../store/helpers/chunks.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const MGET = targetForList('property/value,property/school');
const VALUE = targetForList('property/value');
const KEYS = ['property/value', 'property/school'];

const pending = (address: string, row: number, meta?: string): PendingItem => ({
  prepared: { row, columns: { address }, item: { address, zipcode: '21136', ...(meta === undefined ? {} : { meta }) } },
  duplicates: [],
});

const answered = (chunks: unknown[]): Exchange => ({
  status: 200,
  headers: {},
  windows: [],
  items: chunks.length,
  components: chunks.length * 2,
  chunks,
});

/** A batch run's store as the run uses it, on a clock that never moves: every response in one millisecond. */
async function runStore(path: string, target = MGET, keys = KEYS, maxAgeMs?: number) {
  return openRunStore({
    path,
    connection: { baseUrl: new URL('http://127.0.0.1:1'), key: 'sandbox', secret: 'sandbox' },
    sandbox: true,
    target,
    sectionKeys: keys,
    maxAgeMs,
    prices: { 'property/value': 0.25, 'property/school': 0.1 },
    now: () => FAKE_EPOCH,
  });
}

describe("a batch run's store", () => {
  it('keeps the answers of every response, however many arrive in one millisecond, and what each cost', async () => {
    const path = tempStorePath();
    const store = await runStore(path);
    await store.record(answered([propertyChunk('1 Main St', KEYS)]), [pending('1 Main St', 1)]);
    await store.record(answered([propertyChunk('2 Main St', KEYS)]), [pending('2 Main St', 2)]);
    await store.close(0, 0.35);
    const reader = await openStore(path, { readonly: true });
    expect((await reader.usage({ by: 'run' })).total).toMatchObject({ requests: 2, billed: 2, cost: 0.5 });
    expect((await reader.info()).answers.map((row) => [row.endpoint, row.answers])).toEqual([
      ['v2/property/school', 2],
      ['v2/property/value', 2],
    ]);
    await reader.close();
  });

  it('gives an mget’s answer back to a run of one of its endpoints, with the row’s own meta, and keeps no error', async () => {
    const path = tempStorePath();
    const bought = await runStore(path);
    const failed = { ...propertyChunk('2 Main St', KEYS), 'property/value': { api_code: 500, result: null } };
    await bought.record(answered([propertyChunk('1 Main St', KEYS, { meta: 'a' }), failed, null]), [
      pending('1 Main St', 1, 'a'),
      pending('2 Main St', 2),
      pending('3 Main St', 3),
    ]);
    // A response whose chunks do not match its items keeps nothing.
    await bought.record(answered([propertyChunk('4 Main St', KEYS)]), [pending('4 Main St', 4), pending('5 Main St', 5)]);
    await bought.close(0, 0.35);

    const rerun = await runStore(path, VALUE, ['property/value'], 60_000);
    expect(await rerun.reuse(pending('1 Main St', 1, 'b').prepared)).toEqual(propertyChunk('1 Main St', ['property/value'], { meta: 'b' }));
    for (const address of ['2 Main St', '3 Main St', '4 Main St']) expect(await rerun.reuse(pending(address, 1).prepared)).toBeUndefined();
    await rerun.close(1, 0.25);
  });
});
