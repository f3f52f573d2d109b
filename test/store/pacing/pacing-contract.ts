import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store-api.js';
import { DEFAULT_THROTTLE_POLICY } from '../../../src/policy/policy.js';
import type { SharedPacer, ShareRequest } from '../../../src/throttle/shared-pacer.js';
import { idealLastSend } from '../../bench/fixed-windows.mjs';
import { FAKE_EPOCH, FakeClock } from '../../helpers/fake-clock.js';
import { addressRows, limiterFor, runPipeline, type FakeWorld } from '../../helpers/fake-pipeline.js';
import { FakeService } from '../../helpers/fake-service.js';
import { jain, job, seeded } from '../../helpers/one-account.js';
import { strictService } from '../../helpers/strict-service.js';

/**
 * The shared pacer as every driver keeps it (throttle/shared-pacer.ts's rules, the state in the
 * store): jobs on one store, each with its own connection, as processes (or machines) have, on the
 * test's fake clock. One suite for both drivers, as the store's contract and its race are.
 */
export interface PacingDriver {
  /**
   * A new store every "machine" of a test opens: `open(measuredOffMs)` opens one more connection,
   * whose clock reads the test's `clock` (a database's driver: its machine measures the database's
   * clock `measuredOffMs` off, a fraction of a round trip).
   */
  fresh(clock: FakeClock): (measuredOffMs?: number) => Promise<Store>;
}

const ACCOUNT = 'https://api.example.com key:0123456789abcdef';

export function pacingContract(name: string, driver: PacingDriver): void {
  describe(`jobs pacing one account through one store: ${name}`, () => {
    const stores: Store[] = [];
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((store) => store.close()));
    });

    /**
     * Machines on `clock`: virtual time stands still while any pacer waits for its store, as real
     * time would barely move in a round trip (otherwise the clock could leap to the next timer
     * while a reservation is on its way).
     */
    function machinesOn(clock: FakeClock) {
      let waiting = 0;
      const held = <T>(call: Promise<T>): Promise<T> => {
        if (waiting++ === 0) clock.pause();
        return call.finally(() => {
          if (--waiting === 0) clock.resume();
        });
      };
      const open = driver.fresh(clock);
      return async (measuredOffMs = 0) => {
        const store = await open(measuredOffMs);
        stores.push(store);
        return (owner: string): SharedPacer => {
          const pacer = store.pacer(ACCOUNT, owner);
          return {
            join: () => held(pacer.join()),
            reserve: (request) => held(pacer.reserve(request)),
            report: (reservation, reported) => held(pacer.report(reservation, reported)),
            refund: (reservation) => held(pacer.refund(reservation)),
            endLease: (reservation, components) => held(pacer.endLease(reservation, components)),
            leave: () => held(pacer.leave()),
          };
        };
      };
    }

    it('two runs fill a tight window together to its limit, never oversubscribe it, and finish together at the earliest it allows', async () => {
      const clock = new FakeClock();
      const service = new FakeService(clock, { windows: [{ limit: 20, periodSeconds: 1 }], latencyMs: () => 30 });
      const machine = machinesOn(clock);
      const hosts = [await machine(), await machine()];
      const runs = await Promise.all(
        ['run a', 'run b'].map(async (owner, i) => {
          const world: FakeWorld = { clock, service, written: [] };
          const limiter = limiterFor(world);
          limiter.shareWith(hosts[i]!(owner));
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

    for (const limits of [
      [{ limit: 250, periodSeconds: 6 }],
      [
        { limit: 50, periodSeconds: 1 },
        { limit: 250, periodSeconds: 10 },
      ],
    ]) {
      const windows = limits.map((l) => `${l.limit}/${l.periodSeconds}`).join('+');
      it(`four started together on two machines fill every window to its limit between them, without a 429, in fair shares (${windows})`, async () => {
        const random = seeded(29);
        const start = FAKE_EPOCH + Math.floor(random() * 10_000);
        const clock = new FakeClock(start);
        const service = strictService(limits, clock);
        const machine = machinesOn(clock);
        const [hostA, hostB] = [await machine(0.3), await machine(-0.4)];
        const results = await Promise.all(
          [hostA('a1'), hostA('a2'), hostB('b1'), hostB('b2')].map((pacer) =>
            job(start + Math.floor(random() * 500), 500, service, clock, random, 2 + Math.floor(random() * 5), pacer),
          ),
        );
        expect(service.refused).toBe(0);
        const first = service.counted[0]!.at;
        const last = service.counted.at(-1)!.at;
        const ideal = idealLastSend(
          first,
          service.counted.map((c) => c.components),
          limits,
        );
        expect((ideal - first) / (last - first)).toBeGreaterThanOrEqual(0.97);
        expect(jain(results.map((r) => r.components / (r.lastAnswer - first)))).toBeGreaterThanOrEqual(0.95);
      });
    }

    it('a job that dies holding a share gives it up: the others take whole windows once it has been silent for two of them', async () => {
      const clock = new FakeClock(FAKE_EPOCH + 10);
      const machine = machinesOn(clock);
      const [hostA, hostB] = [await machine(), await machine()];
      const window = { periodMs: 6_000, limit: 250, resetAt: FAKE_EPOCH + 6_000 };
      const ask = (wanted: number, demand = wanted): ShareRequest => ({
        wanted,
        demand,
        unit: 1,
        windows: [window],
        policy: DEFAULT_THROTTLE_POLICY,
      });
      const [dead, alive] = [hostA('dead'), hostB('alive')];
      await dead.join();
      await alive.join();
      await clock.sleep(DEFAULT_THROTTLE_POLICY.startGraceMs);
      // Both want the whole window: each is held to half of it.
      expect(await dead.reserve(ask(1, 250))).toMatchObject({ components: 1 });
      expect(await alive.reserve(ask(250))).toMatchObject({ components: 125 });
      // `dead` is killed: it never leaves. While it may still be alive, its half stays its own...
      await clock.sleep(6_000);
      window.resetAt += 6_000;
      expect(await alive.reserve(ask(250))).toMatchObject({ components: 125 });
      // ...and once it has been silent for two windows (and the reservations' keeping time), the others have it.
      await clock.sleep(2 * 6_000);
      window.resetAt += 2 * 6_000;
      expect(await alive.reserve(ask(250))).toMatchObject({ components: 250 });
    });
  });
}
