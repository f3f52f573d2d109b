import { describe, expect, it } from 'vitest';
import type { SendableItem } from '../../src/batching/batch.js';
import { openSessionRuns, type RunStore } from '../../src/engine/run-store.js';
import { targetForList, type QueryTarget } from '../../src/model/query-target.js';
import type { Exchange } from '../../src/pipeline/send-batch.js';
import { openStore, type Store, type StoreEntry } from '../../src/store/index.js';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { propertyChunk } from '../store/helpers/chunks.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const MGET = targetForList('property/value,property/school');
const VALUE = targetForList('property/value');
const KEYS = ['property/value', 'property/school'];
const PRICES = { 'property/value': 0.25, 'property/school': 0.1 };

const item = (address: string, row: number, meta?: string): SendableItem => ({
  row,
  columns: { address },
  item: { address, zipcode: '21136', ...(meta === undefined ? {} : { meta }) },
});

const answered = (target: QueryTarget, sent: SendableItem[], chunks: unknown[]): Exchange => ({
  target,
  sent,
  answers: chunks.map((chunk) => (chunk !== null && typeof chunk === 'object' ? (chunk as Record<string, unknown>) : undefined)),
  status: 200,
  headers: {},
  windows: [],
  items: sent.length,
  components: sent.length * target.componentsPerItem,
  chunks,
});

/** `store`, its groups of answers written once `slow` settles, everything else at once. */
function slowToRecord(store: Store, slow: Promise<void>): Store {
  return new Proxy(store, {
    get(target, name) {
      if (name === 'recordMany') return (entries: readonly StoreEntry[]) => slow.then(() => target.recordMany(entries));
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `store`, the size of each group of answers it is given to write added to `groups`. */
function countingGroups(store: Store, groups: number[]): Store {
  return new Proxy(store, {
    get(target, name) {
      if (name === 'recordMany') return (entries: readonly StoreEntry[]) => (groups.push(entries.length), target.recordMany(entries));
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * A batch run's store as the run uses it, on a session of its own, on a clock that never moves:
 * every response in one millisecond. `wrap` stands in for the store the run is given.
 */
async function runStore(
  path: string,
  clock: FakeClock,
  target = MGET,
  maxAgeMs?: number,
  wrap: (store: Store) => Store = (store) => store,
): Promise<RunStore> {
  const store = wrap(await openStore(path, { now: () => clock.now() }));
  const session = openSessionRuns({ store, account: 'sandbox (built in)', clock, runLabel: 'property value' });
  const run = await session.openRun({ target, maxAgeMs, prices: PRICES });
  return {
    ...run,
    close: async (fromStore, savedUsd) => {
      try {
        await run.close(fromStore, savedUsd);
      } finally {
        await session.close();
      }
    },
  };
}

describe("a batch run's store", () => {
  it('keeps the answers of every response, however many arrive in one millisecond, and what each cost', async () => {
    const path = tempStorePath();
    const clock = new FakeClock();
    const store = await runStore(path, clock);
    store.kept.record(answered(MGET, [item('1 Main St', 1)], [propertyChunk('1 Main St', KEYS)]));
    store.kept.record(answered(MGET, [item('2 Main St', 2)], [propertyChunk('2 Main St', KEYS)]));
    await store.kept.flush();
    await store.close(0, 0);
    const reader = await openStore(path, { readonly: true });
    expect((await reader.usage({ by: 'run' })).total).toMatchObject({ requests: 2, billed: 2, cost: 0.5 });
    expect((await reader.info()).answers.map((row) => [row.endpoint, row.answers])).toEqual([
      ['v2/property/school', 2],
      ['v2/property/value', 2],
    ]);
    await reader.close();
  });

  it('gives an mget’s answer back to a run of one of its endpoints, and keeps no error', async () => {
    const path = tempStorePath();
    const clock = new FakeClock();
    const bought = await runStore(path, clock);
    const failed = { ...propertyChunk('2 Main St', KEYS), 'property/value': { api_code: 500, result: null } };
    const sent = [item('1 Main St', 1, 'a'), item('2 Main St', 2), item('3 Main St', 3)];
    bought.kept.record(answered(MGET, sent, [propertyChunk('1 Main St', KEYS, { meta: 'a' }), failed, null]));
    await bought.kept.flush();
    await bought.close(0, 0);

    const rerun = await runStore(path, clock, VALUE, 60_000);
    const [one, two, three] = await rerun.kept.resolve([item('1 Main St', 1, 'b'), item('2 Main St', 2), item('3 Main St', 3)]);
    expect(one).toMatchObject({
      kind: 'kept',
      chunk: propertyChunk('1 Main St', ['property/value'], { meta: 'a' }),
      saving: { sections: 1, usd: 0.25 },
    });
    // The school section of row 2 was kept, its value (an error) was not: the value is bought.
    expect(two).toMatchObject({ kind: 'buy', sections: [0] });
    expect(three).toMatchObject({ kind: 'buy', sections: [0] });
    await rerun.close(1, 0.25);
  });

  it('a run of no job waits for the answer another run is buying, then takes it, with no age limit; an answer older than it is bought', async () => {
    const path = tempStorePath();
    const before = await runStore(path, new FakeClock(FAKE_EPOCH));
    before.kept.record(answered(VALUE, [item('9 Main St', 9)], [propertyChunk('9 Main St', ['property/value'])]));
    await before.kept.flush();
    await before.close(0, 0);

    const waiting = await runStore(path, new FakeClock(FAKE_EPOCH + 1_000), VALUE);
    const buying = await runStore(path, new FakeClock(FAKE_EPOCH + 2_000), VALUE);
    expect(await buying.kept.resolve([item('1 Main St', 1)])).toMatchObject([{ kind: 'buy' }]);
    // Looked up, nothing is claimed: both would buy it, and the first to send it claims it.
    expect(await waiting.kept.resolve([item('1 Main St', 1)])).toMatchObject([{ kind: 'buy' }]);
    expect(await buying.kept.claim([{ item: item('1 Main St', 1), sections: [0] }])).toEqual([true]);
    expect(await waiting.kept.claim([{ item: item('1 Main St', 1), sections: [0] }])).toEqual([false]);
    expect(await waiting.kept.resolve([item('1 Main St', 1), item('9 Main St', 9)])).toMatchObject([
      { kind: 'wait', purchase: { kind: 'buy', sections: [0] } },
      { kind: 'buy' },
    ]);
    buying.kept.record(answered(VALUE, [item('1 Main St', 1)], [propertyChunk('1 Main St', ['property/value'])]));
    await buying.kept.flush();
    expect(await waiting.kept.resolve([item('1 Main St', 1)])).toMatchObject([{ kind: 'kept' }]);
    await Promise.all([buying.close(0, 0), waiting.close(1, 0.25)]);
  });

  it('a run started while another runs reuses what that one bought before it started, without an age limit; once it ended, nothing', async () => {
    const path = tempStorePath();
    const clock = new FakeClock(FAKE_EPOCH);
    const job = await runStore(path, clock, VALUE);
    job.kept.record(answered(VALUE, [item('9 Main St', 9)], [propertyChunk('9 Main St', ['property/value'])]));
    await job.kept.flush();
    await clock.sleep(8_000);
    // A gateway's call, or a job on another machine, started 8 s later: it shares what the running job bought.
    const beside = await runStore(path, clock, VALUE);
    expect(await beside.kept.resolve([item('9 Main St', 9)])).toMatchObject([{ kind: 'kept' }]);
    await Promise.all([beside.close(1, 0.25), job.close(0, 0)]);
    await clock.sleep(1_000);
    const after = await runStore(path, clock, VALUE);
    expect(await after.kept.resolve([item('9 Main St', 9)])).toMatchObject([{ kind: 'buy' }]);
    await after.close(0, 0);
  });

  it('writes the answers that came in during one turn of the event loop in one commit, and a later one in its own', async () => {
    const path = tempStorePath();
    const groups: number[] = [];
    const store = await runStore(path, new FakeClock(FAKE_EPOCH), VALUE, undefined, (opened) => countingGroups(opened, groups));
    const respond = (row: number) =>
      store.kept.record(answered(VALUE, [item(`${row} Main St`, row)], [propertyChunk(`${row} Main St`, ['property/value'])]));
    // Three responses read in one turn, each in a callback of its own, as sockets' data events are.
    await new Promise<void>((resolve) => {
      for (const row of [1, 2, 3])
        setImmediate(() => {
          respond(row);
          if (row === 3) resolve();
        });
    });
    await store.kept.flush();
    respond(4);
    await store.kept.flush();
    expect(groups).toEqual([3, 1]);
    await store.close(0, 0);
  });

  it('looks an item up once the answer handed over for it is written: an answer a lookup cannot see yet would be bought again', async () => {
    const path = tempStorePath();
    let write!: () => void;
    const written = new Promise<void>((resolve) => (write = resolve));
    const store = await runStore(path, new FakeClock(FAKE_EPOCH), VALUE, undefined, (opened) => slowToRecord(opened, written));
    const home = item('1 Main St', 1);
    expect(await store.kept.claim([{ item: home, sections: [0] }])).toEqual([true]);
    store.kept.record(answered(VALUE, [home], [propertyChunk('1 Main St', ['property/value'])]));
    // The same item again (deduplication off, or past what it remembers), while its answer is being written.
    const again = store.kept.resolve([home, item('2 Main St', 2)]);
    setTimeout(write, 10);
    expect(await again).toMatchObject([{ kind: 'kept' }, { kind: 'buy' }]);
    await store.close(1, 0.25);
  });

  it('keeps a claim through a refused request (429): released only by the answer that settles it, or by giving it up', async () => {
    const path = tempStorePath();
    const clock = new FakeClock(FAKE_EPOCH);
    const buying = await runStore(path, clock, VALUE, 60_000);
    const other = await runStore(path, clock, VALUE, 60_000);
    const home = item('1 Main St', 1);
    expect(await buying.kept.claim([{ item: home, sections: [0] }])).toEqual([true]);
    buying.kept.record({ ...answered(VALUE, [home], []), status: 429, answers: undefined, chunks: undefined });
    await buying.kept.flush();
    // The refused request is sent again: the other run must still wait for it, not buy it too.
    expect(await other.kept.claim([{ item: home, sections: [0] }])).toEqual([false]);
    buying.kept.record(answered(VALUE, [home], [propertyChunk('1 Main St', ['property/value'])]));
    await buying.kept.flush();
    expect(await other.kept.resolve([home])).toMatchObject([{ kind: 'kept' }]);
    await Promise.all([buying.close(0, 0), other.close(1, 0.25)]);
  });

  it('gives each job of one session claims of its own, and files every request of the session under its one run', async () => {
    const path = tempStorePath();
    const clock = new FakeClock(FAKE_EPOCH);
    const session = openSessionRuns({
      store: await openStore(path, { now: () => clock.now() }),
      account: 'sandbox (built in)',
      clock,
      runLabel: 'serve',
    });
    const [buying, waiting] = await Promise.all([1, 2].map(() => session.openRun({ target: VALUE, maxAgeMs: undefined, prices: PRICES })));
    const home = item('1 Main St', 1);
    expect(await buying!.kept.claim([{ item: home, sections: [0] }])).toEqual([true]);
    // The other job of the same session waits for the first's purchase, as another process's would.
    expect(await waiting!.kept.claim([{ item: home, sections: [0] }])).toEqual([false]);
    buying!.kept.record(answered(VALUE, [home], [propertyChunk('1 Main St', ['property/value'])]));
    waiting!.kept.record(answered(VALUE, [item('2 Main St', 2)], [propertyChunk('2 Main St', ['property/value'])]));
    await Promise.all([buying!.kept.flush(), waiting!.kept.flush()]);
    // The answer released the claim in its own transaction: found before either job closes.
    expect(await waiting!.kept.resolve([home])).toMatchObject([{ kind: 'kept' }]);
    await Promise.all([buying!.close(0, 0), waiting!.close(0, 0)]);
    await session.close();
    const reader = await openStore(path, { readonly: true });
    const usage = await reader.usage({ by: 'run' });
    expect(usage.rows.map((row) => [row.key.endsWith(' serve'), row.requests])).toEqual([[true, 2]]);
    await reader.close();
  });

  it('with one claimant for the session, its jobs still wait for each other, and its next session takes a killed one’s claims over at once', async () => {
    const path = tempStorePath();
    const clock = new FakeClock(FAKE_EPOCH);
    const open = async () =>
      openSessionRuns({
        store: await openStore(path, { now: () => clock.now() }),
        account: 'sandbox (built in)',
        clock,
        runLabel: 'serve',
        claimant: 'host serve 127.0.0.1:8710',
      });
    const killed = await open();
    const [buying, waiting] = await Promise.all([1, 2].map(() => killed.openRun({ target: VALUE, maxAgeMs: undefined, prices: PRICES })));
    const [home, other] = [item('1 Main St', 1), item('2 Main St', 2)];
    expect(await buying!.kept.claim([{ item: home, sections: [0] }])).toEqual([true]);
    expect(await waiting!.kept.resolve([home])).toMatchObject([{ kind: 'wait' }]);
    expect(await waiting!.kept.claim([{ item: home, sections: [0] }])).toEqual([false]);
    expect(await waiting!.kept.claim([{ item: other, sections: [0] }])).toEqual([true]);
    // Killed with both claims live: the next session of that name buys them without waiting out the lease.
    const next = await open();
    const after = await next.openRun({ target: VALUE, maxAgeMs: undefined, prices: PRICES });
    expect(await after.kept.resolve([home, other])).toMatchObject([{ kind: 'buy' }, { kind: 'buy' }]);
    expect(
      await after.kept.claim([
        { item: home, sections: [0] },
        { item: other, sections: [0] },
      ]),
    ).toEqual([true, true]);
    await after.close(0, 0);
    await next.close();
    await killed.close();
  });
});
