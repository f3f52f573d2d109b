import { describe, expect, it } from 'vitest';
import type { KeptAnswers } from '../../src/pipeline/kept-answers.js';
import type { OutputRecord } from '../../src/model/record.js';
import type { FakeClock } from '../helpers/fake-clock.js';
import { addressRows, fakeWorld, runPipeline, upTo } from '../helpers/fake-pipeline.js';

/**
 * A store that keeps each request's answers `writeMs` after they are handed over, one write after
 * another (a database across a network, a journal behind a lock): `has` is the rows whose answers it
 * holds so far.
 */
function slowStore(clock: FakeClock, writeMs: number): { kept: KeptAnswers; has: Set<number> } {
  const has = new Set<number>();
  let writing = Promise.resolve();
  const kept: KeptAnswers = {
    failure: new Promise<never>(() => undefined),
    resolve: (items) => Promise.resolve(items.map(() => ({ kind: 'buy', sections: [0], kept: {}, saving: { sections: 0, usd: 0 } }))),
    claim: (requests) => Promise.resolve(requests.map(() => true)),
    record(exchange) {
      const rows = exchange.sent.flatMap((item, i) => (exchange.answers?.[i] === undefined ? [] : [item.row]));
      writing = writing.then(() => clock.sleep(writeMs)).then(() => rows.forEach((row) => has.add(row)));
    },
    written: () => writing,
    release: () => undefined,
    flush: () => writing,
  };
  return { kept, has };
}

describe('answers are kept before their rows are written', () => {
  it('writes no bought row to the output before the store holds its answer, however slow the store', async () => {
    const world = fakeWorld({ latencyMs: () => 20 });
    const { kept, has } = slowStore(world.clock, 150);
    // What a kill -9 would leave: the rows in the output at each write, each of which must be in the store.
    const notKept: number[] = [];
    const written = world.written;
    written.push = (...records: OutputRecord[]) => {
      for (const record of records) if (record.status === 'ok' && !has.has(record.row)) notKept.push(record.row);
      return Array.prototype.push.apply(written, records);
    };
    const rows = addressRows(600);
    await runPipeline(world, {
      rows,
      kept,
      onResponse: (exchange) => kept.record(exchange),
      batchSize: 50,
      concurrency: 4,
      throttle: { initialPerMinute: 1_000_000 },
    });
    expect(written.map((record) => record.row)).toEqual(upTo(600));
    expect(written.every((record) => record.status === 'ok')).toBe(true);
    expect(notKept).toEqual([]);
  });

  it('sends a request only while fewer than --concurrency × --batch-size items are paid for and not yet kept: a kill -9 costs at most what is in flight', async () => {
    // Each write takes 150 ms, an answer 20: the service outpaces the store sevenfold.
    let sent = 0;
    const atRisk: number[] = [];
    const world = fakeWorld({
      latencyMs: () => 20,
      script: (seen) => {
        sent += seen.items.length;
        atRisk.push(sent - store.has.size);
        return undefined;
      },
    });
    const store = slowStore(world.clock, 150);
    await runPipeline(world, {
      rows: addressRows(600),
      kept: store.kept,
      onResponse: (exchange) => store.kept.record(exchange),
      batchSize: 50,
      concurrency: 4,
      throttle: { initialPerMinute: 1_000_000 },
    });
    expect(world.written.map((record) => record.row)).toEqual(upTo(600));
    expect(sent).toBe(600);
    expect(Math.max(...atRisk)).toBe(4 * 50);
  });
});
