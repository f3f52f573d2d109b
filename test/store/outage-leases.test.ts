import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/errors/index.js';
import { itemRefOf } from '../../src/model/section-refs.js';
import { openStore, OutageTolerantStore, type Store } from '../../src/store/index.js';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { databasePerFile, freshSchema } from '../helpers/postgres.js';
import { A, claimsOf, home, VALUE } from './contract/fixtures.js';
import { tempStorePath } from './helpers/temp-store.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const database = databasePerFile();

/** Two connections to one new store of a driver (two machines), on the test's clock. */
const drivers: Record<string, (clock: FakeClock) => Promise<[Store, Store]>> = {
  SQLite: async (clock) => {
    const path = tempStorePath();
    const first = await openStore(path, { now: () => clock.now() });
    return [first, await openStore(path, { now: () => clock.now() })];
  },
  PostgreSQL: async (clock) => {
    const url = freshSchema(database.url);
    const open = () => openPostgresStore(url, { now: () => clock.now(), databaseNow: () => clock.now() });
    const first = await open();
    return [first, await open()];
  },
};

/** What the store does now, for every machine: answers, is away (every call fails at once), or is frozen (a call hangs until it thaws, or 30 s). */
interface Weather {
  down: boolean;
  frozenUntil: number;
}

const unreachable = () =>
  new StoreError('cannot use the store db: the database did not answer; or run with --no-store', undefined, {
    outage: true,
    reason: 'the database did not answer',
  });

/** A machine's store as the weather lets it answer, riding out outages as a run's does. */
function machine(store: Store, weather: Weather, clock: FakeClock) {
  const through = new Proxy(store, {
    get(target, name: keyof Store) {
      const value: unknown = Reflect.get(target, name);
      if (typeof value !== 'function' || ['problems', 'close', 'pacer'].includes(name)) {
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      return async (...args: unknown[]) => {
        if (weather.down) throw unreachable();
        if (clock.now() < weather.frozenUntil) {
          const timeout = clock.now() + 30 * SECOND;
          await clock.sleep(Math.min(timeout, weather.frozenUntil) - clock.now());
          if (clock.now() < weather.frozenUntil) throw unreachable();
        }
        return Reflect.apply(value, target, args) as unknown;
      };
    },
  });
  return new OutageTolerantStore(through, {
    journal: join(mkdtempSync(join(tmpdir(), 'propdata-journal-')), 'journal'),
    waitMs: 5 * MINUTE,
    clock,
  });
}

/** Each run's heartbeat, every 20 s for `ms`. */
async function heartbeats(clock: FakeClock, runs: [Store, string][], ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 20 * SECOND) {
    await clock.sleep(20 * SECOND);
    for (const [store, owner] of runs) await store.renewClaims(owner, MINUTE);
  }
}

const [mine, theirs] = claimsOf(itemRefOf(VALUE, home('405 Dyer Ave'))).concat(claimsOf(itemRefOf(VALUE, home('213 Bentley Hill Dr'))));

for (const [name, open] of Object.entries(drivers)) {
  describe(`two live runs that lose the store longer than a lease (${name}): a lease runs only while its owner could renew it`, () => {
    // Said from the first call that failed (a frozen one fails only at its timeout, 30 s on) until
    // one answered: the outage's length, and a retry's backoff (10 s at most) beyond it.
    const outages: [string, (weather: Weather, clock: FakeClock) => void, RegExp][] = [
      ['stopped for 90 s', (weather) => (weather.down = true), /out of reach for (9\d|100) s/],
      ['frozen for 60 s', (weather, clock) => (weather.frozenUntil = clock.now() + MINUTE), /out of reach for 60 s/],
    ];
    for (const [what, begin, said] of outages) {
      it(`${what}: each comes back holding its own claims, neither takes the other's, and the outage's length is said`, async () => {
        const clock = new FakeClock(FAKE_EPOCH);
        const weather: Weather = { down: false, frozenUntil: 0 };
        const [first, second] = await open(clock);
        const a = machine(first, weather, clock);
        const b = machine(second, weather, clock);
        try {
          expect(await a.claim(A, 'job a', [mine!], {}, MINUTE)).toEqual(['claimed']);
          expect(await b.claim(A, 'job b', [theirs!], {}, MINUTE)).toEqual(['claimed']);
          begin(weather, clock);
          // Each wants the other's section meanwhile (a batch of its own, sent once the store answers).
          const aWants = a.claim(A, 'job a', [theirs!], {}, MINUTE);
          const bWants = b.claim(A, 'job b', [mine!], {}, MINUTE);
          // Their heartbeats find the store away, and are made once it is back.
          await Promise.all([a.renewClaims('job a', MINUTE), b.renewClaims('job b', MINUTE)]);
          if (weather.down) {
            await clock.sleep(90 * SECOND);
            weather.down = false;
          }
          expect(await aWants).toEqual(['held']);
          expect(await bWants).toEqual(['held']);
          // A lease and more after the store's return, each still holds its own: they were renewed.
          await heartbeats(
            clock,
            [
              [a, 'job a'],
              [b, 'job b'],
            ],
            80 * SECOND,
          );
          expect(await a.claim(A, 'job a', [theirs!], {}, MINUTE)).toEqual(['held']);
          expect(await b.claim(A, 'job b', [mine!], {}, MINUTE)).toEqual(['held']);
          expect(await a.claim(A, 'job a', [mine!], {}, MINUTE)).toEqual(['claimed']);
          expect(a.problems().notes).toEqual([expect.stringMatching(said)]);
        } finally {
          await a.close();
          await b.close();
        }
      });
    }

    it('a run that was away gives the claims of a run that stopped a lease from the store’s return, then takes them', async () => {
      const clock = new FakeClock(FAKE_EPOCH);
      const weather: Weather = { down: false, frozenUntil: 0 };
      const [first, second] = await open(clock);
      const a = machine(first, weather, clock);
      const stopped = machine(second, weather, clock);
      try {
        expect(await stopped.claim(A, 'job b', [theirs!], {}, MINUTE)).toEqual(['claimed']);
        weather.down = true;
        const aWants = a.claim(A, 'job a', [theirs!], {}, MINUTE);
        await clock.sleep(90 * SECOND);
        weather.down = false;
        expect(await aWants).toEqual(['held']);
        await clock.sleep(61 * SECOND);
        expect(await a.claim(A, 'job a', [theirs!], {}, MINUTE)).toEqual(['took over']);
      } finally {
        await a.close();
        await stopped.close();
      }
    });
  });
}
