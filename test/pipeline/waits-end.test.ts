import { describe, expect, it } from 'vitest';
import type { KeptAnswers, Resolution } from '../../src/pipeline/kept-answers.js';
import { CLAIMS } from '../../src/policy/policy.js';
import { addressRows, fakeWorld, runPipeline, upTo } from '../helpers/fake-pipeline.js';

const buy: Resolution = { kind: 'buy', sections: [0], kept: {}, saving: { sections: 0, usd: 0 } };

/**
 * A store that contradicts itself on some rows (`stuck`): a lookup never answers them, and a claim
 * never gives them (as a damaged frame beside intact sections once did: the lookup could not read
 * it, the claim called it kept). `claims` counts the claims asked per row.
 */
function contradictingStore(stuck: ReadonlySet<number>, lookup: (row: number) => Resolution = () => buy) {
  const claims = new Map<number, number>();
  const kept: KeptAnswers = {
    failure: new Promise<never>(() => undefined),
    resolve: (items) => Promise.resolve(items.map((item) => (stuck.has(item.row) ? lookup(item.row) : buy))),
    claim: (requests) =>
      Promise.resolve(
        requests.map(({ item }) => {
          claims.set(item.row, (claims.get(item.row) ?? 0) + 1);
          return !stuck.has(item.row);
        }),
      ),
    record: () => undefined,
    release: () => undefined,
    flush: () => Promise.resolve(),
  };
  return { kept, claims };
}

describe('no wait without an end (PROTOCOL.md, rule 6)', () => {
  it.each([
    ['a lookup says buy, a claim says kept', () => buy],
    ['a lookup says another job holds it, forever', (): Resolution => ({ kind: 'wait', purchase: buy })],
  ])('%s: the run ends past the wait limit, the item bought once, the output whole', async (_, lookup) => {
    const world = fakeWorld();
    const started = world.clock.now();
    const { kept, claims } = contradictingStore(new Set([3, 7]), lookup);
    const { records, result } = await runPipeline(world, {
      rows: addressRows(10),
      kept,
      claimWaitLimitMs: CLAIMS.waitLimitMs,
      throttle: { initialPerMinute: 1_000_000 },
    });
    expect(records.map((record) => record.row)).toEqual(upTo(10));
    expect(records.every((record) => record.status === 'ok')).toBe(true);
    expect(result.fatal).toBeUndefined();
    // Each row asked of the service once: the stuck ones too, once their wait ran out.
    expect(world.service.requests.flatMap((request) => request.rows).sort((a, b) => a - b)).toEqual(upTo(10));
    expect(world.clock.now() - started).toBeGreaterThanOrEqual(CLAIMS.waitLimitMs);
    expect(world.clock.now() - started).toBeLessThan(CLAIMS.waitLimitMs + 10 * CLAIMS.waitPollMs);
    expect(claims.get(1)).toBe(1);
  });
});
