import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/errors/index.js';
import { itemRefOf } from '../../src/model/section-refs.js';
import { openStore, OutageTolerantStore, type Store } from '../../src/store/index.js';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { A, answerOf, entryOf, home, request, section, VALUE } from './contract/fixtures.js';
import { tempStorePath } from './helpers/temp-store.js';

const MINUTE = 60_000;
const ref = itemRefOf(VALUE, home('405 Dyer Ave'));

/**
 * A real store behind a switch: while `down`, every call fails as an unreachable database's does
 * (an outage), or, with `refusing`, as one that refuses (a refusal no wait mends).
 */
async function switchable(clock: FakeClock) {
  const inner = await openStore(tempStorePath(), { now: () => clock.now() });
  const state = { down: false, refusing: false, calls: 0 };
  const failing = () =>
    state.refusing
      ? new StoreError('cannot use the store db: the database refused the login; or run with --no-store')
      : new StoreError('cannot use the store db: the database did not answer; or run with --no-store', undefined, {
          outage: true,
          reason: 'the database did not answer',
        });
  const store = new Proxy(inner, {
    get(target, name: keyof Store) {
      const value: unknown = Reflect.get(target, name);
      if (typeof value !== 'function') return value;
      const call = (args: unknown[]): unknown => Reflect.apply(value, target, args);
      if (['problems', 'close', 'pacer'].includes(name)) return (...args: unknown[]) => call(args);
      return (...args: unknown[]) => {
        state.calls += 1;
        if (state.down || state.refusing) return Promise.reject(failing());
        return call(args);
      };
    },
  });
  return { store, state };
}

function riding(store: Store, clock: FakeClock, waitMs = 5 * MINUTE) {
  const journal = join(mkdtempSync(join(tmpdir(), 'propdata-journal-')), 'journal');
  const heard: string[] = [];
  const tolerant = new OutageTolerantStore(store, {
    journal,
    waitMs,
    clock,
    events: {
      lost: (reason) => heard.push(`lost: ${reason.reason}`),
      back: (ms, journaled) => heard.push(`back after ${ms} ms, ${journaled} journaled`),
    },
  });
  return { tolerant, journal, heard };
}

describe('a store that stops answering for a while (an outage)', () => {
  it('keeps what is answered meanwhile on this machine at once, waits for it, and gives it to the store as it comes back', async () => {
    const clock = new FakeClock(FAKE_EPOCH);
    const { store, state } = await switchable(clock);
    const { tolerant, journal, heard } = riding(store, clock);
    state.down = true;
    await tolerant.record(entryOf([answerOf(ref, [section(1)])], { request: request(clock.now(), 'run-1') }));
    // On disk now: a kill from here loses nothing.
    expect(readdirSync(journal).filter((name) => name.endsWith('.json'))).toHaveLength(1);
    // Claims are neither renewed nor released while it is away: they lapse by themselves.
    await tolerant.renewClaims('run-1', MINUTE);
    const finding = tolerant.find(A, [ref], { maxAgeMs: MINUTE });
    await clock.sleep(40_000);
    state.down = false;
    const [found] = await finding;
    expect(found!.sections[0]?.body).toEqual(section(1));
    expect(readdirSync(journal)).toEqual([]);
    expect(heard).toEqual(['lost: the database did not answer', expect.stringMatching(/^back after 4\d{4} ms, 1 journaled$/)]);
    expect(tolerant.problems().notes).toEqual([
      expect.stringMatching(/was out of reach for 4\d s; sending paused meanwhile, and the 1 request answered/),
    ]);
    await tolerant.close();
  });

  it('tries again with backoff, never more often than twice a second, and stops once the wait is over, naming --store-wait', async () => {
    const clock = new FakeClock(FAKE_EPOCH);
    const { store, state } = await switchable(clock);
    const { tolerant } = riding(store, clock, 2 * MINUTE);
    state.down = true;
    const started = clock.now();
    await expect(tolerant.find(A, [ref], {})).rejects.toThrow(
      `cannot use the store ${tolerant.location}: the database did not answer, for 120 s (--store-wait); what was answered meanwhile is kept on this machine, and the next run stores it; or run with --no-store`,
    );
    expect(clock.now() - started).toBe(2 * MINUTE);
    expect(clock.slept.slice(0, 6)).toEqual([500, 1_000, 2_000, 4_000, 8_000, 10_000]);
    expect(state.calls).toBeLessThan(20);
    await tolerant.close();
  });

  it('lets a refusal through at once: waiting would not mend it', async () => {
    const clock = new FakeClock(FAKE_EPOCH);
    const { store, state } = await switchable(clock);
    const { tolerant, heard } = riding(store, clock);
    state.refusing = true;
    await expect(tolerant.find(A, [ref], {})).rejects.toThrow(/refused the login/);
    await expect(tolerant.record(entryOf([answerOf(ref, [section(1)])]))).rejects.toThrow(/refused the login/);
    expect(clock.now()).toBe(FAKE_EPOCH);
    expect(heard).toEqual([]);
    await tolerant.close();
  });
});
