import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import type { Store } from '../../src/store/store-api.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/throttle/policy.js';
import type { SharedPacer, ShareRequest } from '../../src/throttle/shared-pacer.js';
import { idealLastSend } from '../bench/fixed-windows.mjs';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { jain, job, seeded } from '../helpers/one-account.js';
import { databasePerFile, freshSchema } from '../helpers/postgres.js';
import { strictService } from '../helpers/strict-service.js';

/**
 * The pacer across machines: jobs on several machines reserving in one PostgreSQL store, each
 * machine with its own connections, as one machine's jobs do in its SQLite file.
 */
const database = databasePerFile();
const stores: Store[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const ACCOUNT = 'https://api.example.com key:0123456789abcdef';

/**
 * A machine's store on the test's fake clock (its database's clock too). Virtual time stands still
 * while any machine's pacer is waiting for the database, as real time would barely move in a round
 * trip: otherwise the clock could leap to the next timer while a reservation is on its way.
 */
function machinesOn(clock: FakeClock) {
  let waiting = 0;
  const held = <T>(call: Promise<T>): Promise<T> => {
    if (waiting++ === 0) clock.pause();
    return call.finally(() => {
      if (--waiting === 0) clock.resume();
    });
  };
  const url = freshSchema(database.url);
  /** `measuredOffMs`: how far off this machine measures the database's clock (a fraction of a round trip). */
  return async (measuredOffMs = 0) => {
    const store = await openPostgresStore(url, { now: () => clock.now() + measuredOffMs, databaseNow: () => clock.now() });
    stores.push(store);
    return (owner: string): SharedPacer => {
      const pacer = store.pacer(ACCOUNT, owner);
      return {
        join: () => held(pacer.join()),
        reserve: (request) => held(pacer.reserve(request)),
        report: (reservation, reported) => held(pacer.report(reservation, reported)),
        refund: (reservation) => held(pacer.refund(reservation)),
        leave: () => held(pacer.leave()),
      };
    };
  };
}

describe('jobs on two machines sharing one PostgreSQL store', () => {
  for (const limits of [
    [{ limit: 250, periodSeconds: 6 }],
    [
      { limit: 50, periodSeconds: 1 },
      { limit: 250, periodSeconds: 10 },
    ],
  ]) {
    const name = limits.map((l) => `${l.limit}/${l.periodSeconds}`).join('+');
    it(`four started together fill every window to its limit between them, without a 429, in fair shares, each machine measuring the database's clock a little off (${name})`, async () => {
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

describe("the database's clock, an hour away from the run's", () => {
  const HOUR = 3_600_000;

  it("stamps what it keeps on the database's clock, and gives the run its times in the run's", async () => {
    const runNow = () => Date.now() + HOUR;
    const store = await openPostgresStore(freshSchema(database.url), { now: runNow });
    stores.push(store);
    const item = { item: 'property|address=1 harbor rd|zipcode=21201', sections: [{ endpoint: 'v2/property/value', params: '' }] };
    // The service states its resets in whole seconds.
    const onSecond = (time: number) => Math.ceil(time / 1000) * 1000;
    const resetAt = onSecond(runNow() + 5_000);
    await store.record({
      request: {
        at: runNow(),
        run: 'run',
        account: ACCOUNT,
        endpoint: 'property/value',
        items: 1,
        components: 1,
        status: 200,
        billed: 1,
        cost: 0.25,
      },
      windows: [{ periodSeconds: 6, limit: 250, remaining: 200, resetAt }],
      answers: [
        { item: item.item, frame: [['address_info', {}], null], sections: [{ ref: item.sections[0]!, body: { api_code: 0, result: {} } }] },
      ],
    });
    const [found] = await store.find(ACCOUNT, [item], { maxAgeMs: 60_000 });
    expect(Math.abs(found!.sections[0]!.at - Date.now())).toBeLessThan(5_000);
    const [remembered] = (await store.loadWindows(ACCOUNT))!;
    expect(Math.abs(remembered!.resetAt - resetAt)).toBeLessThan(50);

    // The pacer: the window's reset as the run knows it, and when to ask again in the run's time.
    const window = { periodMs: 6_000, limit: 10, resetAt: onSecond(runNow() + 3_000) };
    const ask: ShareRequest = {
      wanted: 10,
      demand: 10,
      unit: 10,
      windows: [window],
      policy: { ...DEFAULT_THROTTLE_POLICY, startGraceMs: 0 },
    };
    expect(await store.pacer(ACCOUNT, 'first').reserve(ask)).toMatchObject({ components: 10 });
    const refused = await store.pacer(ACCOUNT, 'second').reserve(ask);
    expect(refused.components).toBe(0);
    const retryAt = 'retryAt' in refused ? refused.retryAt : 0;
    expect(retryAt).toBeGreaterThan(runNow());
    expect(retryAt).toBeLessThan(window.resetAt + 1_000);
  });
});
