import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SendableItem } from '../../src/batching/batch.js';
import type { Service } from '../../src/engine/connect.js';
import { openSessionRuns } from '../../src/engine/run-store.js';
import { openSession } from '../../src/engine/session.js';
import { targetForList } from '../../src/model/query-target.js';
import type { Exchange } from '../../src/pipeline/send-batch.js';
import { openStore } from '../../src/store/index.js';
import { pendingDir } from '../../src/store/pending.js';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { propertyChunk } from '../store/helpers/chunks.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const VALUE = targetForList('property/value');
const PRICES = { 'property/value': 0.25 };
const ACCOUNT = 'sandbox (built in)';
const home: SendableItem = { row: 1, columns: { address: '1 Main St' }, item: { address: '1 Main St', zipcode: '21136' } };

const answered = (sent: SendableItem[]): Exchange => ({
  target: VALUE,
  sent,
  answers: sent.map((item) => propertyChunk(item.item.address as string, ['property/value'])),
  status: 200,
  headers: {},
  windows: [],
  items: sent.length,
  components: sent.length,
  chunks: sent.map((item) => propertyChunk(item.item.address as string, ['property/value'])),
});

describe("a one-off's session beside its SQLite store (PROTOCOL.md, rule 7)", () => {
  it('opens the store under its own name once another process has it open: a job there waits for its answer, which releases its claim', async () => {
    const path = tempStorePath();
    const clock = new FakeClock(FAKE_EPOCH);
    // Another process's batch, on the store open (its write-ahead log beside the file).
    const batchRuns = openSessionRuns({
      store: await openStore(path, { now: () => clock.now() }),
      account: ACCOUNT,
      clock,
      runLabel: 'batch',
    });
    expect(existsSync(`${path}-wal`)).toBe(true);
    const batch = await batchRuns.openRun({ target: VALUE, maxAgeMs: undefined, prices: PRICES });
    const session = await openSession({
      // Never asked: the test sends nothing, it hands the run store its answers.
      service: {} as Service,
      store: {
        path,
        account: ACCOUNT,
        runLabel: 'property value 1 Main St',
        journal: mkdtempSync(join(tmpdir(), 'propdata-journal-')),
        outageWaitMs: 1_000,
        beside: true,
      },
      clock,
      ratePerMinute: 1_000,
      maxWaitMs: 1_000,
    });
    const oneOff = await session.runs!.openRun({ target: VALUE, maxAgeMs: undefined, prices: PRICES });
    expect(await oneOff.kept.resolve([home])).toMatchObject([{ kind: 'buy' }]);
    // Its claim, left beside the file and then made in the store it opened, is its own.
    expect(await oneOff.kept.claim([{ item: home, sections: [0] }])).toEqual([true]);
    expect(await batch.kept.resolve([home])).toMatchObject([{ kind: 'wait' }]);
    oneOff.kept.record(answered([home]));
    await oneOff.kept.flush();
    // Its answer released its claim: the batch takes it from the store.
    expect(await batch.kept.resolve([home])).toMatchObject([{ kind: 'kept' }]);
    await oneOff.close(0, 0);
    await session.close();
    expect(existsSync(pendingDir(path)) ? readdirSync(pendingDir(path)) : []).toEqual([]);
    await batch.close(0, 0);
    await batchRuns.close();
    const reader = await openStore(path, { readonly: true });
    const usage = await reader.usage({ by: 'run' });
    // Its request is filed under the one-off's session, the name its claim was left under.
    expect(usage.rows.map((row) => [row.key.endsWith(' property value 1 Main St'), row.requests])).toEqual([[true, 1]]);
    await reader.close();
  });
});
