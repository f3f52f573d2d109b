import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { StoreError } from '../../src/errors/index.js';
import { Activity } from '../../src/gateway/activity.js';
import { fetchWithinBudget } from '../../src/gateway/budgeted-call.js';
import { callReply } from '../../src/gateway/call-reply.js';
import { readClientRequest } from '../../src/gateway/client-request.js';
import type { GatewayParts } from '../../src/gateway/gateway-parts.js';
import { SpendBook } from '../../src/gateway/spend-book.js';
import type { Upstream } from '../../src/gateway/upstream.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { KeyStore } from '../../src/store/key-store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const ACCOUNT = 'https://api.example.com key:0123456789abcdef';
const bought = (cost: number) => ({ requests: 1, components: cost * 4, billed: cost * 4, cost, fromStore: 0, saved: 0 });

/**
 * A real store whose spend writes fail while `failing` is set: a database that hiccups (the
 * KeyStore's writes and the account's reuse record; reads and holds still work).
 */
function hiccupping(store: Store): Store & { failing: boolean } {
  const state = { failing: false };
  const fail = () => Promise.reject(new Error('the store hiccupped'));
  const keys = new Proxy(store.keys, {
    get(target, name: keyof KeyStore) {
      if (state.failing && (name === 'recordSpend' || name === 'settle')) return fail;
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return new Proxy(store, {
    get(target, name) {
      if (name === 'keys') return keys;
      if (name === 'failing') return state.failing;
      if (name === 'recordReuse' && state.failing) return fail;
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set(_target, name, value) {
      if (name !== 'failing') return false;
      state.failing = Boolean(value);
      return true;
    },
  }) as Store & { failing: boolean };
}

describe("the gateway's spend book, on a store whose writes fail", () => {
  let clock: FakeClock;
  let store: Store;
  let flaky: Store & { failing: boolean };
  let book: SpendBook;
  beforeEach(async () => {
    clock = new FakeClock();
    store = await openStore(tempStorePath(), { now: () => clock.now() });
    flaky = hiccupping(store);
    book = new SpendBook(flaky, ACCOUNT, 'serve test', () => clock.now());
  });
  afterEach(() => store.close());

  it('loses no spend of calls bound by no budget: a failed write keeps its rows for the next, and the figures keep counting them', async () => {
    book.add('alice', 'property/value', bought(0.5));
    book.add('alice', 'property/value', { ...bought(0), requests: 0, fromStore: 2, saved: 0.5 });
    flaky.failing = true;
    await expect(book.refresh()).rejects.toThrow('the store hiccupped');
    await expect(book.flush()).rejects.toThrow('the store hiccupped');
    book.add('alice', 'property/value', bought(0.25));
    expect(book.figures().month.get('alice')).toBe(0.75);
    flaky.failing = false;
    await book.refresh();
    expect(book.figures().month.get('alice')).toBe(0.75);
    expect(await store.keys.spentSince(0)).toEqual(new Map([['alice', 0.75]]));
    const usage = await store.keys.usage({});
    expect(usage.total).toMatchObject({ requests: 2, cost: 0.75, fromStore: 2, saved: 0.5 });
    expect((await store.usage({ by: 'endpoint' })).total).toMatchObject({ fromStore: 2, saved: 0.5 });
  });

  it('loses no spend of a call that held its budget: the settle that failed keeps the hold, and is written with the next flush', async () => {
    const held = await book.hold('alice', 1, { keyBudget: 1 });
    expect('id' in held).toBe(true);
    flaky.failing = true;
    // The client is answered all the same: its spend is kept, and so is its hold.
    await book.settle((held as { id: string }).id, 'alice', 'property/value', bought(0.5));
    expect(await book.hold('alice', 0.25, { keyBudget: 1 })).toEqual({ refused: 'key', spent: 1 });
    // Past the hold's lease, renewed by the refreshes (which fail to write, not to renew).
    await clock.sleep(45_000);
    await expect(book.refresh()).rejects.toThrow('the store hiccupped');
    await clock.sleep(45_000);
    expect(await book.hold('alice', 0.25, { keyBudget: 1 })).toEqual({ refused: 'key', spent: 1 });
    flaky.failing = false;
    await book.flush();
    expect(await store.keys.spentSince(0)).toEqual(new Map([['alice', 0.5]]));
    // Settled: what it did not spend is free again.
    expect('id' in (await book.hold('alice', 0.5, { keyBudget: 1 }))).toBe(true);
  });
});

describe('a call bound by a budget, on a store that cannot hold it', () => {
  it('buys nothing and is answered 503 (the store failed), not 500', async () => {
    const clock = new FakeClock();
    const store = await openStore(tempStorePath(), { now: () => clock.now() });
    try {
      const failing = new Proxy(store, {
        get(target, name) {
          if (name === 'keys') return { ...target.keys, reserve: () => Promise.reject(new StoreError('the store is away')) };
          const value: unknown = Reflect.get(target, name);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      let fetched = 0;
      const upstream = { fetch: () => Promise.resolve((fetched += 1)), rateHeaders: () => ({}) } as unknown as Upstream;
      const parts = {
        book: new SpendBook(failing, ACCOUNT, 'serve test', () => clock.now()),
        activity: new Activity(),
        settings: { upstream, clock, maxCostMonth: 5 },
      } as unknown as GatewayParts;
      const key = { name: 'alice', secretHash: 'unused', created: 0 };
      const asked = readClientRequest(
        findEndpoint('property/value')!,
        'GET',
        new URL('http://gw/v2/property/value?address=1+Oak+St&zipcode=21201'),
        undefined,
        '',
      );
      const { result } = await fetchWithinBudget(parts, key, asked, {
        maxAgeMs: undefined,
        maxWaitMs: 1_000,
        signal: new AbortController().signal,
      });
      expect(fetched).toBe(0);
      const reply = callReply(result, { rateHeaders: {}, now: clock.now(), budget: () => ({ whose: 'key', message: 'unused' }) });
      expect(reply.status).toBe(503);
    } finally {
      await store.close();
    }
  });
});
