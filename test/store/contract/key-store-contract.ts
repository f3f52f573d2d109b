import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClientKey, KeySpend, Store, StoreEntry } from '../../../src/store/index.js';
import type { SpendHold } from '../../../src/store/key-store.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { A, B } from './fixtures.js';
import type { StoreDriver } from './store-contract.js';

const DAY = 86_400_000;
/** 2026-11-03 01:15 UTC. */
const START = Date.UTC(2026, 10, 3, 1, 15);

const key = (name: string, extra: Partial<ClientKey> = {}): ClientKey => ({
  name,
  secretHash: `scrypt:32768:8:1:salt-of-${name}:hash-of-${name}`,
  created: START,
  ...extra,
});

const spend = (name: string, cost: number, extra: Partial<KeySpend> = {}): KeySpend => ({
  at: START,
  key: name,
  account: A,
  endpoint: 'property/value',
  requests: 1,
  components: 10,
  billed: 10,
  cost,
  fromStore: 0,
  saved: 0,
  ...extra,
});

/** A request of the account's spend log (a CLI job's, or a gateway's) that cost `usd`. */
const entryCosting = (usd: number): StoreEntry => ({
  request: { at: START, run: 'a job', account: A, endpoint: 'property/value', items: 1, components: 1, status: 200, billed: 1, cost: usd },
  windows: [],
  answers: [],
});

/**
 * Everything `KeyStore` promises (src/store/key-store.ts), run against one driver: the SQLite file
 * and PostgreSQL run the very same tests, as for the store contract (store-contract.ts).
 */
export function keyStoreContract(name: string, driver: StoreDriver): void {
  describe(`the key store contract: ${name}`, () => {
    let clock: FakeClock;
    let store: Store;
    let other: Store | undefined;
    /** The same database through another connection: a gateway on another host. */
    let open: () => Promise<Store>;

    beforeEach(async () => {
      clock = new FakeClock(START);
      const handle = await driver.create(() => clock.now());
      store = handle.store;
      open = () => handle.open();
    });
    afterEach(async () => {
      await other?.close();
      other = undefined;
      await store.close();
    });

    it('keeps a key as given, its hash never anything else, with its budget and endpoints when it has them', async () => {
      expect(await store.keys.list()).toEqual([]);
      expect(await store.keys.add(key('nightly-etl', { budgetMonth: 12.5, endpoints: ['property/value', 'block/*'] }))).toBe(true);
      expect(await store.keys.add(key('alice'))).toBe(true);
      expect(await store.keys.list()).toEqual([
        key('alice'),
        key('nightly-etl', { budgetMonth: 12.5, endpoints: ['property/value', 'block/*'] }),
      ]);
    });

    it('refuses a second live key of one name, and issues a revoked one again with its new hash and settings', async () => {
      await store.keys.add(key('alice', { budgetMonth: 5 }));
      expect(await store.keys.add(key('alice', { secretHash: 'scrypt:another' }))).toBe(false);
      expect((await store.keys.list())[0]!.secretHash).toBe(key('alice').secretHash);

      expect(await store.keys.revoke('alice', START + DAY)).toBe(true);
      expect(await store.keys.revoke('alice', START + 2 * DAY)).toBe(false);
      expect(await store.keys.revoke('nobody', START)).toBe(false);
      expect(await store.keys.list()).toEqual([key('alice', { budgetMonth: 5, revoked: START + DAY })]);

      const again = key('alice', { secretHash: 'scrypt:new', created: START + 3 * DAY });
      expect(await store.keys.add(again)).toBe(true);
      expect(await store.keys.list()).toEqual([again]);
    });

    it("moves a live key's hash to another scheme only from the hash it has: never a revoked key's, never one issued anew", async () => {
      await store.keys.add(key('alice', { budgetMonth: 5 }));
      const old = key('alice').secretHash;
      expect(await store.keys.rehash('alice', 'scrypt:not-the-one-it-has', 'hmac-sha256:x:y')).toBe(false);
      expect(await store.keys.rehash('alice', old, 'hmac-sha256:salt:hash')).toBe(true);
      expect(await store.keys.list()).toEqual([key('alice', { budgetMonth: 5, secretHash: 'hmac-sha256:salt:hash' })]);
      // Issued anew meanwhile (revoked, then added with a new secret): the check of the old one changes nothing.
      await store.keys.revoke('alice', START + DAY);
      expect(await store.keys.rehash('alice', 'hmac-sha256:salt:hash', 'hmac-sha256:late:one')).toBe(false);
      expect(await store.keys.rehash('nobody', old, 'hmac-sha256:x:y')).toBe(false);
      expect((await store.keys.list())[0]!.secretHash).toBe('hmac-sha256:salt:hash');
    });

    it('sums what each key bought from a time on, every account together', async () => {
      await store.keys.recordSpend([
        spend('alice', 0.25, { at: START - DAY }),
        spend('alice', 1.5),
        spend('alice', 0.75, { account: B, endpoint: 'property/value,property/rental_value' }),
        spend('bob', 2),
        spend('carol', 0, { requests: 0, components: 0, billed: 0, fromStore: 40, saved: 10 }),
      ]);
      await store.keys.recordSpend([]);
      expect(await store.keys.spentSince(START)).toEqual(
        new Map([
          ['alice', 2.25],
          ['bob', 2],
          ['carol', 0],
        ]),
      );
      expect(await store.keys.spentSince(START - DAY)).toEqual(
        new Map([
          ['alice', 2.5],
          ['bob', 2],
          ['carol', 0],
        ]),
      );
    });

    it('reports the spend by key, since a time and for one account, with what the store answered', async () => {
      await store.keys.recordSpend([
        spend('alice', 0.25, { at: START - DAY, fromStore: 3, saved: 0.75 }),
        spend('alice', 1.5, { requests: 2, components: 6, billed: 6 }),
        spend('bob', 2, { account: B, fromStore: 1, saved: 0.25 }),
      ]);
      const all = await store.keys.usage({});
      expect(all.rows).toEqual([
        { key: 'alice', requests: 3, components: 16, billed: 16, cost: 1.75, fromStore: 3, saved: 0.75 },
        { key: 'bob', requests: 1, components: 10, billed: 10, cost: 2, fromStore: 1, saved: 0.25 },
      ]);
      expect(all.total).toEqual({ requests: 4, components: 26, billed: 26, cost: 3.75, fromStore: 4, saved: 1 });
      expect((await store.keys.usage({ since: START })).rows.map((row) => [row.key, row.cost])).toEqual([
        ['alice', 1.5],
        ['bob', 2],
      ]);
      expect((await store.keys.usage({ account: B })).rows.map((row) => row.key)).toEqual(['bob']);
      expect((await store.keys.usage({ account: 'https://unknown.example key:0000' })).rows).toEqual([]);
    });

    it('changes a live key in place, its secret kept; rotates its secret, the old one kept until its grace ends', async () => {
      await store.keys.add(key('alice', { budgetMonth: 5, endpoints: ['property/value'] }));
      expect(await store.keys.update('alice', { budgetMonth: 20, expires: START + DAY, ratePerMinute: 600 })).toBe(true);
      expect(await store.keys.update('alice', { endpoints: null })).toBe(true);
      expect(await store.keys.update('nobody', { budgetMonth: 1 })).toBe(false);
      expect(await store.keys.list()).toEqual([key('alice', { budgetMonth: 20, expires: START + DAY, ratePerMinute: 600 })]);
      expect(await store.keys.update('alice', { budgetMonth: null, expires: null, ratePerMinute: null })).toBe(true);
      expect(await store.keys.list()).toEqual([key('alice')]);

      expect(await store.keys.rotate('alice', 'scrypt:rotated', START + DAY)).toBe(true);
      expect(await store.keys.list()).toEqual([
        key('alice', { secretHash: 'scrypt:rotated', previousSecretHash: key('alice').secretHash, previousValidUntil: START + DAY }),
      ]);
      await store.keys.revoke('alice', START);
      expect(await store.keys.rotate('alice', 'scrypt:again', START + DAY)).toBe(false);
      expect(await store.keys.update('alice', { budgetMonth: 1 })).toBe(false);
      // Issued again: nothing of the old secrets opens it.
      await store.keys.add(key('alice', { secretHash: 'scrypt:new' }));
      expect(await store.keys.list()).toEqual([key('alice', { secretHash: 'scrypt:new' })]);
    });

    it("holds a call's spend against its key's and its account's month budgets, never past either, and settles it with what was spent", async () => {
      const hold = (id: string, usd: number, extra: Partial<SpendHold> = {}): SpendHold => ({
        id,
        key: 'alice',
        account: A,
        usd,
        keyBudget: 1,
        now: START,
        expires: START + 60_000,
        ...extra,
      });
      await store.keys.recordSpend([spend('alice', 0.25)]);
      expect(await store.keys.reserve(hold('h1', 0.5))).toEqual({ held: true });
      // 0.25 spent and 0.5 held: another 0.5 would pass the key's 1 USD.
      expect(await store.keys.reserve(hold('h2', 0.5))).toEqual({ refused: 'key', spent: 0.75 });
      expect(await store.keys.reserve(hold('h2', 0.25))).toEqual({ held: true });
      // The account's budget counts its spend log and every key's holds.
      await store.record(entryCosting(0.5));
      expect(await store.keys.reserve(hold('b1', 0.5, { key: 'bob', keyBudget: undefined, accountBudget: 1.5 }))).toEqual({
        refused: 'account',
        spent: 1.25,
      });
      expect(await store.keys.reserve(hold('b1', 0.25, { key: 'bob', keyBudget: undefined, accountBudget: 1.5 }))).toEqual({ held: true });
      // Settled: what h1 spent is the key's spend, and the rest of what it held is free again.
      await store.keys.settle('h1', [spend('alice', 0.25)]);
      expect(await store.keys.spentSince(START)).toEqual(new Map([['alice', 0.5]]));
      expect(await store.keys.reserve(hold('h3', 0.25))).toEqual({ held: true });
      expect(await store.keys.reserve(hold('h4', 0.25))).toEqual({ refused: 'key', spent: 1 });
      // A hold lapses unless renewed: a gateway killed mid-call holds nothing for long.
      await store.keys.renewHolds(['h3'], START + 120_000);
      const later = { now: START + 90_000, expires: START + 150_000 };
      expect(await store.keys.reserve(hold('h4', 0.25, later))).toEqual({ held: true });
      expect(await store.keys.reserve(hold('h5', 0.25, later))).toEqual({ refused: 'key', spent: 1 });
    });

    it('is one for every connection to the database: a key added or revoked on one host is seen by the other', async () => {
      other = await open();
      await store.keys.add(key('alice'));
      expect((await other.keys.list()).map((listed) => listed.name)).toEqual(['alice']);
      await other.keys.revoke('alice', START + DAY);
      expect((await store.keys.list())[0]!.revoked).toBe(START + DAY);
      await other.keys.recordSpend([spend('alice', 3)]);
      expect(await store.keys.spentSince(START)).toEqual(new Map([['alice', 3]]));
    });
  });
}
