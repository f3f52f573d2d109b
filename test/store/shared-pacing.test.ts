import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fake-clock.js';
import { addressRows, limiterFor, runPipeline, type FakeWorld } from '../helpers/fake-pipeline.js';
import { FakeService } from '../helpers/fake-service.js';
import { tempStorePath } from './helpers/temp-store.js';
import { openStore, type Store } from '../../src/store/index.js';

/**
 * Two runs on one account and one store, against a window tighter than either would take alone:
 * the store's shared pacer holds them together to the window, so the service refuses nothing.
 * Each run has its own connection to the SQLite file, as two processes have, and is driven as the
 * CLI drives it (the pipeline, its limiter sharing the store's pacer); the service and both runs
 * are on one fake clock, so what is asserted is exact and the same every time.
 */
describe('two runs sharing one store', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  it('fill a tight window together to its limit, never oversubscribe it, and finish together at the earliest it allows', async () => {
    const clock = new FakeClock();
    const service = new FakeService(clock, { windows: [{ limit: 20, periodSeconds: 1 }], latencyMs: () => 30 });
    const path = tempStorePath();
    const runs = await Promise.all(
      ['run a', 'run b'].map(async (owner) => {
        const store = await openStore(path, { now: () => clock.now() });
        stores.push(store);
        const world: FakeWorld = { clock, service, written: [] };
        const limiter = limiterFor(world);
        limiter.shareWith(store.pacer('sandbox (built in)', owner));
        const { stats } = await runPipeline(world, { rows: addressRows(40), batchSize: 10, limiter });
        return { written: world.written, stats, finished: clock.elapsed() };
      }),
    );
    expect(service.answered(429)).toEqual([]);
    expect(runs.map((run) => run.stats.rateLimitWaits)).toEqual([0, 0]);
    expect(runs.map((run) => run.written.filter((record) => record.status === 'ok').length)).toEqual([40, 40]);
    // 80 components at 20 a second: the runs fill every second to its limit between them, and both
    // are done at the earliest the window allows: the fourth second's start, its 50 ms margin and a
    // 30 ms answer. Alone on their machines (no store), the same runs took 290 ms more.
    const perSecond = new Map<number, number>();
    for (const request of service.requests) {
      const second = Math.floor(request.at / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + request.items.length);
    }
    expect([...perSecond.values()]).toEqual([20, 20, 20, 20]);
    expect(runs.map((run) => run.finished)).toEqual([3_080, 3_080]);
  });
});
