import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { itemRefOf, type SectionRef } from '../../../src/model/section-refs.js';
import type { Store } from '../../../src/store/index.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import {
  A,
  answerOf,
  B,
  claimsOf,
  DISTRIBUTION,
  entryOf,
  frameOf,
  home,
  NO_CONTENT,
  RENTAL,
  RENTAL_AND_VALUE,
  request,
  section,
  VALUE,
  VALUE_AND_RENTAL,
  WITHIN,
  WITHIN_AND_RENTAL,
} from './fixtures.js';

/** One database of a driver, opened for a test. */
export interface DriverHandle {
  store: Store;
  /** Another connection to the same database, on the same clock: another process. Closed by the caller. */
  open(): Promise<Store>;
  /** Makes one kept section unreadable, as damage on disk would, or writes `text` over it (a hand edit). */
  damage(account: string, item: string, ref: SectionRef, text?: string): Promise<void>;
  /** Writes `text` over an item's kept frame (its address_info and the chunk's other members), as a hand edit would. */
  damageFrame(account: string, item: string, text: string): Promise<void>;
}

/** A driver under test: a new, empty database whose store reads `now` for every time it keeps or compares. */
export interface StoreDriver {
  create(now: () => number): Promise<DriverHandle>;
  /** The driver claims an item as it looks it up (Store.claimItem, optional): its contract is run too. */
  claimsItems?: boolean;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 2026-11-03 01:15 UTC. */
const START = Date.UTC(2026, 10, 3, 1, 15);

/**
 * Everything `Store` promises (src/store/store-api.ts), run against one driver: the SQLite file and
 * PostgreSQL run the very same tests. Nothing here may know which database is behind it.
 */
export function storeContract(name: string, driver: StoreDriver): void {
  describe(`the store contract: ${name}`, () => {
    let clock: FakeClock;
    let handle: DriverHandle;
    let store: Store;
    const later = (ms: number) => clock.sleep(ms);

    beforeEach(async () => {
      clock = new FakeClock(START);
      handle = await driver.create(() => clock.now());
      store = handle.store;
    });
    afterEach(() => store.close());

    describe('answers', () => {
      it('files a section by the item and endpoint, whatever command bought it: an mget’s is found alone, and back', async () => {
        const dyer = home('405 Dyer Ave');
        await store.record(entryOf([answerOf(itemRefOf(VALUE_AND_RENTAL, dyer), [section(412_000), section(2_100)])]));
        const [alone] = await store.find(A, [itemRefOf(VALUE, dyer)], { maxAgeMs: HOUR });
        expect(alone).toEqual({
          frame: frameOf(itemRefOf(VALUE, dyer).item),
          sections: [{ body: section(412_000), at: START }],
          damaged: 0,
        });
        // In another order, and through another command's mget.
        const [reversed] = await store.find(A, [itemRefOf(RENTAL_AND_VALUE, dyer)], { maxAgeMs: HOUR });
        expect(reversed!.sections.map((kept) => kept?.body)).toEqual([section(2_100), section(412_000)]);

        const bentley = home('213 Bentley Hill Dr');
        await store.record(entryOf([answerOf(itemRefOf(VALUE, bentley), [section(380_000)])]));
        const [mget] = await store.find(A, [itemRefOf(VALUE_AND_RENTAL, bentley)], { maxAgeMs: HOUR });
        expect(mget!.sections).toEqual([{ body: section(380_000), at: START }, undefined]);
        expect(mget!.frame).toEqual(frameOf(itemRefOf(VALUE, bentley).item));
      });

      it('finds a list of items in one call, in order, and nothing of an item never kept', async () => {
        const [one, two, three] = ['1 Main St', '2 Main St', '3 Main St'].map((address) => itemRefOf(VALUE, home(address)));
        await store.record(entryOf([answerOf(one!, [section(1)]), answerOf(three!, [NO_CONTENT])]));
        const found = await store.find(A, [three!, two!, one!], { maxAgeMs: HOUR });
        expect(found.map((item) => item.sections[0]?.body)).toEqual([NO_CONTENT, undefined, section(1)]);
        expect(found[1]).toEqual({ sections: [undefined], damaged: 0 });
        expect(await store.find(A, [], { maxAgeMs: HOUR })).toEqual([]);
      });

      it('files a section under its own parameters: a sibling’s does not split it, its own does, a default is its absence', async () => {
        const item = home('405 Dyer Ave', { client_value: 900_000 });
        await store.record(entryOf([answerOf(itemRefOf(WITHIN_AND_RENTAL, item), [section(1), section(2)])]));
        const fresh = { maxAgeMs: HOUR };
        const bodyOf = async (ref: ReturnType<typeof itemRefOf>) => (await store.find(A, [ref], fresh))[0]!.sections[0]?.body;
        // client_value is value_within_block's: the rental_value section is the one `property rental_value` buys.
        expect(await bodyOf(itemRefOf(RENTAL, home('405 Dyer Ave')))).toEqual(section(2));
        expect(await bodyOf(itemRefOf(WITHIN, item))).toEqual(section(1));
        expect(await bodyOf(itemRefOf(WITHIN, home('405 Dyer Ave', { client_value: 800_000 })))).toBeUndefined();
        expect(await bodyOf(itemRefOf(WITHIN, home('405 Dyer Ave')))).toBeUndefined();

        const block = { block_id: '060376703241005' };
        await store.record(entryOf([answerOf(itemRefOf(DISTRIBUTION, { ...block, property_type: 'SFD' }), [section(3)])]));
        expect(await bodyOf(itemRefOf(DISTRIBUTION, block))).toEqual(section(3));
        expect(await bodyOf(itemRefOf(DISTRIBUTION, { ...block, property_type: 'CND' }))).toBeUndefined();
      });

      it('counts a section younger than maxAge, or arrived since the job began, and no other', async () => {
        const ref = itemRefOf(VALUE, home('405 Dyer Ave'));
        await store.record(entryOf([answerOf(ref, [section(1)])]));
        await later(HOUR);
        const found = async (freshness: { maxAgeMs?: number; since?: number }) =>
          (await store.find(A, [ref], freshness))[0]!.sections[0] !== undefined;
        expect(await found({ maxAgeMs: HOUR + 1 })).toBe(true);
        expect(await found({ maxAgeMs: HOUR })).toBe(false);
        expect(await found({})).toBe(false);
        expect(await found({ since: START })).toBe(true);
        expect(await found({ since: START + 1 })).toBe(false);
        expect(await found({ maxAgeMs: MINUTE, since: START })).toBe(true);
      });

      it('keeps each account’s answers apart, in one store', async () => {
        const ref = itemRefOf(VALUE, home('405 Dyer Ave'));
        await store.record(entryOf([answerOf(ref, [section(1)])]));
        expect((await store.find(B, [ref], { maxAgeMs: HOUR }))[0]!.sections).toEqual([undefined]);
        await store.record(entryOf([answerOf(ref, [section(2)])], { account: B }));
        expect((await store.find(A, [ref], { maxAgeMs: HOUR }))[0]!.sections[0]?.body).toEqual(section(1));
        expect((await store.find(B, [ref], { maxAgeMs: HOUR }))[0]!.sections[0]?.body).toEqual(section(2));
      });

      it('replaces an older answer with a newer one, never a newer with one that arrived before it (an entry recorded late)', async () => {
        const dyer = home('405 Dyer Ave');
        await store.record(entryOf([answerOf(itemRefOf(VALUE, dyer), [section(1)])]));
        await later(MINUTE);
        await store.record(entryOf([answerOf(itemRefOf(VALUE, dyer), [section(2)], frameOf('newer'))]));
        const late = answerOf(itemRefOf(VALUE_AND_RENTAL, dyer), [section(0), section(5)], frameOf('late'));
        await store.record(entryOf([late], { arrivedAt: START - HOUR }));
        const [found] = await store.find(A, [itemRefOf(VALUE_AND_RENTAL, dyer)], { maxAgeMs: DAY });
        expect(found).toEqual({
          frame: frameOf('newer'),
          sections: [
            { body: section(2), at: START + MINUTE },
            { body: section(5), at: START - HOUR },
          ],
          damaged: 0,
        });
      });

      it('records a request once: an entry recorded again changes nothing', async () => {
        const ref = itemRefOf(VALUE, home('405 Dyer Ave'));
        const entry = entryOf([answerOf(ref, [section(1)])]);
        await store.record(entry);
        await later(MINUTE);
        await store.record({ ...entry, answers: [answerOf(ref, [section(2)])] });
        expect((await store.find(A, [ref], { maxAgeMs: HOUR }))[0]!.sections).toEqual([{ body: section(1), at: START }]);
        expect((await store.usage({ by: 'run', account: A })).total).toMatchObject({ requests: 1, cost: 0.25 });
      });

      it('records several requests in one call as it records each: a later answer wins, a request recorded already changes nothing', async () => {
        const dyer = itemRefOf(VALUE, home('405 Dyer Ave'));
        const bentley = itemRefOf(VALUE, home('213 Bentley Hill Dr'));
        const main = itemRefOf(VALUE, home('409 Main St'));
        const recorded = entryOf([answerOf(main, [section(1)])]);
        await store.record(recorded);
        await later(MINUTE);
        const claims = [...claimsOf(dyer), ...claimsOf(bentley)];
        expect(await store.claim(A, 'run-1', claims, {}, HOUR)).toEqual(['claimed', 'claimed']);
        await store.recordMany([
          entryOf([answerOf(dyer, [section(2)]), answerOf(bentley, [section(3)])], { owner: 'run-1', settles: claims }),
          { ...recorded, answers: [answerOf(main, [section(4)])] },
          entryOf([answerOf(dyer, [section(5)])], {
            windows: [{ periodSeconds: 60, limit: 250, remaining: 40, resetAt: START + 2 * MINUTE }],
          }),
        ]);
        const found = await store.find(A, [dyer, bentley, main], { maxAgeMs: HOUR });
        expect(found.map((item) => item.sections[0]?.body)).toEqual([section(5), section(3), section(1)]);
        expect(await store.held(A, 'run-2', claims)).toEqual([false, false]);
        expect((await store.loadWindows(A))?.[0]?.remaining).toBe(40);
        expect((await store.usage({ by: 'run', account: A })).total).toMatchObject({ requests: 3 });
      });

      it.each([
        ['a list', []],
        ['an api_code that is no number', { api_code: 'zero', result: { value: 1 } }],
        ['an answer without its result', { api_code: 0, api_code_description: 'ok' }],
        ['a string', 'ok'],
      ])('does not keep a section that is not an answer (%s), nor serves it', async (_, body) => {
        const ref = itemRefOf(VALUE_AND_RENTAL, home('405 Dyer Ave'));
        await store.record(entryOf([answerOf(ref, [body, section(2)])]));
        const [found] = await store.find(A, [ref], { maxAgeMs: HOUR });
        expect(found!.sections).toEqual([undefined, { body: section(2), at: START }]);
        expect(await store.claim(A, 'run-1', claimsOf(ref), { maxAgeMs: HOUR }, MINUTE)).toEqual(['claimed', 'kept']);
      });

      it.each(['[]', '{"api_code":"zero"}', '{"api_code":0,"result":null}'])(
        'reads a kept section changed into JSON that is no answer (%s) as damaged: counted, claimable, replaced',
        async (text) => {
          const ref = itemRefOf(VALUE_AND_RENTAL, home('405 Dyer Ave'));
          await store.record(entryOf([answerOf(ref, [section(1), section(2)])]));
          await handle.damage(A, ref.item, ref.sections[0]!, text);
          const [found] = await store.find(A, [ref], { maxAgeMs: HOUR });
          expect(found).toMatchObject({ sections: [undefined, { body: section(2) }], damaged: 1 });
          expect(await store.claim(A, 'run-1', claimsOf(ref), { maxAgeMs: HOUR }, MINUTE)).toEqual(['claimed', 'kept']);
          await store.record(entryOf([answerOf(itemRefOf(VALUE, home('405 Dyer Ave')), [section(3)])]));
          expect((await store.find(A, [ref], { maxAgeMs: HOUR }))[0]).toMatchObject({ sections: [{ body: section(3) }, {}], damaged: 0 });
        },
      );

      it.each([
        ['cut short', (frame: string) => frame.slice(0, 40)],
        ['a list', () => '[]'],
        ['an object', () => '{}'],
        ['null', () => 'null'],
        ['a list of lists without the sections’ place', (frame: string) => frame.replace('null', '["value",1]')],
      ])('reads an item whose frame was changed (%s) as damaged: each section counted, claimable, replaced', async (_, change) => {
        const ref = itemRefOf(VALUE_AND_RENTAL, home('405 Dyer Ave'));
        await store.record(entryOf([answerOf(ref, [section(1), section(2)])]));
        await handle.damageFrame(A, ref.item, change(JSON.stringify(frameOf(ref.item))));
        const [found] = await store.find(A, [ref], { maxAgeMs: HOUR });
        expect(found).toEqual({ sections: [undefined, undefined], damaged: 2 });
        // What no lookup serves, no claim calls kept: the item is bought, not looked up again forever.
        expect(await store.claim(A, 'run-1', claimsOf(ref), { maxAgeMs: HOUR }, MINUTE)).toEqual(['claimed', 'claimed']);
        await later(SECOND);
        await store.record(entryOf([answerOf(ref, [section(3), section(4)])], { owner: 'run-1', settles: claimsOf(ref) }));
        const [again] = await store.find(A, [ref], { maxAgeMs: HOUR });
        expect(again).toMatchObject({ frame: frameOf(ref.item), sections: [{ body: section(3) }, { body: section(4) }], damaged: 0 });
        expect(await store.claim(A, 'run-2', claimsOf(ref), { maxAgeMs: HOUR }, MINUTE)).toEqual(['kept', 'kept']);
      });

      it('reads a damaged section as missing, counts it, and replaces it when bought again', async () => {
        const ref = itemRefOf(VALUE_AND_RENTAL, home('405 Dyer Ave'));
        await store.record(entryOf([answerOf(ref, [section(1), section(2)])]));
        await handle.damage(A, ref.item, ref.sections[0]!);
        expect(store.problems()).toEqual({ damaged: 0, notes: [] });
        const [found] = await store.find(A, [ref], { maxAgeMs: HOUR });
        expect(found!.sections).toEqual([undefined, { body: section(2), at: START }]);
        expect(found!.damaged).toBe(1);
        expect(store.problems().damaged).toBe(1);
        // Not kept, so claimable; bought again, even by an entry recorded late, it is whole again.
        expect(await store.claim(A, 'run-1', claimsOf(ref).slice(0, 1), { maxAgeMs: HOUR }, MINUTE)).toEqual(['claimed']);
        await store.record(entryOf([answerOf(itemRefOf(VALUE, home('405 Dyer Ave')), [section(3)])], { arrivedAt: START - MINUTE }));
        const [again] = await store.find(A, [ref], { maxAgeMs: HOUR });
        expect(again).toMatchObject({ sections: [{ body: section(3) }, { body: section(2) }], damaged: 0 });
        expect(store.problems().damaged).toBe(1);
      });
    });

    describe('claims', () => {
      const ref = itemRefOf(VALUE_AND_RENTAL, home('405 Dyer Ave'));
      const [value, rental] = claimsOf(ref);

      it('makes a section one owner’s: another finds it held; its owner claims it again', async () => {
        expect(await store.claim(A, 'run-1', [value!], {}, MINUTE)).toEqual(['claimed']);
        expect(await store.claim(A, 'run-2', [value!, rental!], {}, MINUTE)).toEqual(['held', 'claimed']);
        expect(await store.held(A, 'run-2', [value!, rental!])).toEqual([true, false]);
        expect(await store.held(A, 'run-1', [value!, rental!])).toEqual([false, true]);
        expect(await store.claim(A, 'run-1', [value!], {}, MINUTE)).toEqual(['claimed']);
        // Another account's claim on the same item is its own.
        expect(await store.claim(B, 'run-2', [value!], {}, MINUTE)).toEqual(['claimed']);
      });

      it('claims, finds held and answers "kept" for an item whose text holds quotes, backslashes, control characters and more', async () => {
        const odd = itemRefOf(VALUE, home(`4'05 "Dyer" Ave\\ {a,b}\n\t\u0001 Ä 😀`));
        const [claim] = claimsOf(odd);
        expect(await store.claim(A, "run-1's", [claim!], {}, MINUTE)).toEqual(['claimed']);
        expect(await store.held(A, 'run-2', [claim!])).toEqual([true]);
        expect(await store.claim(A, 'run-2', [claim!], {}, MINUTE)).toEqual(['held']);
        await store.record(entryOf([answerOf(odd, [section(1)])], { owner: "run-1's", settles: [claim!] }));
        expect(await store.held(A, 'run-2', [claim!])).toEqual([false]);
        expect(await store.claim(A, 'run-2', [claim!], { maxAgeMs: HOUR }, MINUTE)).toEqual(['kept']);
      });

      it('answers "kept" for a section kept fresh meanwhile, and claims a stale one', async () => {
        await store.record(entryOf([answerOf(itemRefOf(VALUE, home('405 Dyer Ave')), [section(1)])]));
        await later(MINUTE);
        expect(await store.claim(A, 'run-1', [value!, rental!], { maxAgeMs: HOUR }, MINUTE)).toEqual(['kept', 'claimed']);
        expect(await store.claim(A, 'run-1', [value!], { since: START }, MINUTE)).toEqual(['kept']);
        expect(await store.claim(A, 'run-1', [value!], { maxAgeMs: SECOND }, MINUTE)).toEqual(['claimed']);
      });

      it('lets a claim lapse after its lease, unless its owner renews it first', async () => {
        await store.claim(A, 'run-1', [value!], {}, 30 * SECOND);
        await later(20 * SECOND);
        await store.renewClaims('run-1', 30 * SECOND);
        await later(20 * SECOND);
        expect(await store.held(A, 'run-2', [value!])).toEqual([true]);
        expect(await store.claim(A, 'run-2', [value!], {}, MINUTE)).toEqual(['held']);
        await later(11 * SECOND);
        expect(await store.held(A, 'run-2', [value!])).toEqual([false]);
        // Taking a lapsed claim is said; its owner's renewal does not bring it back then.
        expect(await store.claim(A, 'run-2', [value!], {}, MINUTE)).toEqual(['took over']);
        await store.renewClaims('run-1', HOUR);
        expect(await store.held(A, 'run-1', [value!])).toEqual([true]);
        expect(await store.held(A, 'run-2', [value!])).toEqual([false]);
      });

      it('gives a claim that lapsed while its owner was cut off back to its owner when it renews first (rule 3)', async () => {
        await store.claim(A, 'run-1', [value!], {}, MINUTE);
        // The store was away for 90 s: nobody could renew anything.
        await later(90 * SECOND);
        expect(await store.held(A, 'run-2', [value!])).toEqual([false]);
        // A run back from the outage counts what lapsed since it lost the store as standing.
        expect(await store.held(A, 'run-2', [value!], { graceMs: 95 * SECOND })).toEqual([true]);
        expect(await store.claim(A, 'run-2', [value!], {}, MINUTE, { graceMs: 95 * SECOND })).toEqual(['held']);
        // Its owner, back too, renews it: it stands again for everyone.
        await store.renewClaims('run-1', MINUTE);
        expect(await store.held(A, 'run-2', [value!])).toEqual([true]);
        expect(await store.claim(A, 'run-2', [value!], {}, MINUTE)).toEqual(['held']);
        expect(await store.claim(A, 'run-1', [value!], {}, MINUTE)).toEqual(['claimed']);
      });

      it('takes a live claim over only when forced (a waiter past its limit), and says so', async () => {
        await store.claim(A, 'run-1', [value!], {}, HOUR);
        expect(await store.claim(A, 'run-2', [value!, rental!], {}, MINUTE, { force: true })).toEqual(['took over', 'claimed']);
        expect(await store.held(A, 'run-1', [value!])).toEqual([true]);
        // Forced or not, a kept section is kept: nobody buys what the store holds fresh.
        await store.record(
          entryOf([answerOf(itemRefOf(VALUE, home('405 Dyer Ave')), [section(1)])], { owner: 'run-2', settles: [value!] }),
        );
        expect(await store.claim(A, 'run-1', [value!], { maxAgeMs: HOUR }, MINUTE, { force: true })).toEqual(['kept']);
      });

      it('decides a section named twice once', async () => {
        expect(await store.claim(A, 'run-1', [value!, rental!, value!], {}, MINUTE)).toEqual(['claimed', 'claimed', 'claimed']);
        expect(await store.claim(A, 'run-2', [rental!, value!, rental!], {}, MINUTE)).toEqual(['held', 'held', 'held']);
      });

      it('gives claims up on release, or settles them with the answer it records, its owner’s only', async () => {
        await store.claim(A, 'run-1', [value!, rental!], {}, MINUTE);
        await store.release(A, 'run-2', [value!]);
        expect(await store.held(A, 'run-2', [value!])).toEqual([true]);
        await store.release(A, 'run-1', [value!]);
        expect(await store.held(A, 'run-2', [value!, rental!])).toEqual([false, true]);
        await store.record(entryOf([answerOf(ref, [section(1), section(2)])], { owner: 'run-1', settles: [rental!] }));
        expect(await store.held(A, 'run-2', [rental!])).toEqual([false]);
      });

      it('gives up every claim of an owner at once, across accounts, and no other owner’s', async () => {
        await store.claim(A, 'run-1', [value!, rental!], {}, MINUTE);
        await store.claim(B, 'run-1', [value!], {}, MINUTE);
        await store.claim(B, 'run-3', [rental!], {}, MINUTE);
        await store.releaseAll('run-1');
        expect(await store.held(A, 'run-2', [value!, rental!])).toEqual([false, false]);
        expect(await store.held(B, 'run-2', [value!, rental!])).toEqual([false, true]);
      });

      it('gives one section to one owner when two connections claim it', async () => {
        const other = await handle.open();
        try {
          expect(await store.claim(A, 'run-1', [value!], {}, MINUTE)).toEqual(['claimed']);
          expect(await other.claim(A, 'run-2', [value!], {}, MINUTE)).toEqual(['held']);
          await store.record(
            entryOf([answerOf(itemRefOf(VALUE, home('405 Dyer Ave')), [section(1)])], { owner: 'run-1', settles: [value!] }),
          );
          expect(await other.claim(A, 'run-2', [value!], { maxAgeMs: HOUR }, MINUTE)).toEqual(['kept']);
          expect((await other.find(A, [ref], { maxAgeMs: HOUR }))[0]!.sections[0]?.body).toEqual(section(1));
        } finally {
          await other.close();
        }
      });
    });

    describe.runIf(driver.claimsItems)('an item claimed as it is looked up (Store.claimItem)', () => {
      const ref = itemRefOf(VALUE_AND_RENTAL, home('405 Dyer Ave'));
      const [value, rental] = claimsOf(ref);
      const claimItem = (owner: string, freshness = {}, options = {}) => store.claimItem!(A, owner, ref, freshness, MINUTE, options);

      it('finds the item as a lookup does, and claims the sections it lacks, not the kept ones', async () => {
        await store.record(entryOf([answerOf(itemRefOf(VALUE, home('405 Dyer Ave')), [section(1)])]));
        const { found, outcomes } = await claimItem('run-1', { maxAgeMs: HOUR });
        expect(outcomes).toEqual(['kept', 'claimed']);
        expect(found).toEqual((await store.find(A, [ref], { maxAgeMs: HOUR }))[0]);
        expect(found.sections[0]?.body).toEqual(section(1));
        expect(await store.held(A, 'run-2', [value!, rental!])).toEqual([false, true]);
        // Kept whole: nothing to claim.
        await store.record(entryOf([answerOf(ref, [section(1), section(2)])], { owner: 'run-1', settles: [rental!] }));
        expect((await claimItem('run-2', { maxAgeMs: HOUR })).outcomes).toEqual(['kept', 'kept']);
        expect(await store.held(A, 'run-3', [value!, rental!])).toEqual([false, false]);
      });

      it('claims nothing of an item another owner holds a section of (it waits holding nothing), and says a lapsed claim it took over', async () => {
        await store.claim(A, 'run-1', [rental!], {}, MINUTE);
        expect((await claimItem('run-2')).outcomes).toEqual(['claimed', 'held']);
        expect(await store.held(A, 'run-3', [value!])).toEqual([false]);
        await later(MINUTE + SECOND);
        // A run back from an outage counts a claim that lapsed since it lost the store as standing (rule 3).
        expect((await claimItem('run-2', {}, { graceMs: 2 * MINUTE })).outcomes).toEqual(['claimed', 'held']);
        expect((await claimItem('run-2')).outcomes).toEqual(['claimed', 'took over']);
        expect(await store.held(A, 'run-3', [value!, rental!])).toEqual([true, true]);
      });

      it('enters a run in the same transaction as enterRun would: fresh is what arrived since the earliest start of the runs running', async () => {
        await store.enterRun(A, 'other', MINUTE);
        await later(SECOND);
        await store.record(entryOf([answerOf(itemRefOf(VALUE, home('405 Dyer Ave')), [section(1)])]));
        await later(SECOND);
        const first = await claimItem('run-1', {}, { enter: { run: 'mine', left: [] } });
        expect(first.entered).toBe(START);
        expect(first.outcomes).toEqual(['kept', 'claimed']);
        // The runs running now count it: 'other' ended, 'mine' leaves with the next to enter.
        await store.leaveRun('other');
        expect(await store.enterRun(A, 'third', MINUTE)).toBe(START + 2 * SECOND);
        const next = await claimItem('run-2', {}, { enter: { run: 'fourth', left: ['third', 'mine'] } });
        expect(next.entered).toBe(START + 2 * SECOND);
        expect(next.outcomes).toEqual(['claimed', 'held']);
        await later(SECOND);
        expect(await store.enterRun(A, 'fifth', MINUTE)).toBe(START + 2 * SECOND);
      });

      it('reads a damaged section as missing, counts it, and claims it', async () => {
        await store.record(entryOf([answerOf(ref, [section(1), section(2)])]));
        await handle.damage(A, ref.item, ref.sections[0]!);
        const { found, outcomes } = await claimItem('run-1', { maxAgeMs: HOUR });
        expect(outcomes).toEqual(['claimed', 'kept']);
        expect(found.sections).toEqual([undefined, { body: section(2), at: START }]);
        expect(found.damaged).toBe(1);
        expect(store.problems().damaged).toBe(1);
      });
    });

    describe('runs', () => {
      it('gives the earliest start among the account’s runs running now, its own included; a run that left or lapsed counts no more', async () => {
        expect(await store.enterRun(A, 'run-1', MINUTE)).toBe(START);
        await later(8 * SECOND);
        expect(await store.enterRun(A, 'run-2', MINUTE)).toBe(START);
        // Another account's runs are its own.
        expect(await store.enterRun(B, 'run-3', MINUTE)).toBe(START + 8 * SECOND);
        // Renewed, a run keeps its start.
        await later(50 * SECOND);
        await store.renewRun(A, 'run-1', MINUTE);
        await later(30 * SECOND);
        expect(await store.enterRun(A, 'run-4', MINUTE)).toBe(START);
        await store.leaveRun('run-1');
        // run-2 lapsed (not renewed for a minute): run-4 is the earliest running now.
        expect(await store.enterRun(A, 'run-5', MINUTE)).toBe(START + 88 * SECOND);
        // A run whose entry lapsed enters anew, from now.
        await store.renewRun(A, 'run-5', MINUTE);
        await store.leaveRun('run-4');
        await later(2 * MINUTE);
        await store.renewRun(A, 'run-5', MINUTE);
        expect(await store.enterRun(A, 'run-6', MINUTE)).toBe(START + 208 * SECOND);
      });

      it('takes the runs that ended out as another enters, in the same transaction: they count no more, for it or anyone after', async () => {
        expect(await store.enterRun(A, 'run-1', MINUTE)).toBe(START);
        await later(SECOND);
        expect(await store.enterRun(A, 'run-2', MINUTE)).toBe(START);
        await later(SECOND);
        expect(await store.enterRun(A, 'run-3', MINUTE, ['run-1'])).toBe(START + SECOND);
        expect(await store.enterRun(A, 'run-4', MINUTE, ['run-2', 'run-3', 'gone before'])).toBe(START + 2 * SECOND);
        expect(await store.enterRun(A, 'run-5', MINUTE)).toBe(START + 2 * SECOND);
      });
    });

    describe('jobs', () => {
      it('begins another name of a running job at its start, and leaves a running job of that name as it is', async () => {
        const since = await store.beginJob(A, 'out.csv');
        await later(MINUTE);
        await store.nameJob(A, 'file 64:12', since);
        expect(await store.jobSince(A, 'file 64:12')).toBe(START);
        await store.beginJob(A, 'alias.csv');
        await store.nameJob(A, 'alias.csv', since);
        expect(await store.jobSince(A, 'alias.csv')).toBe(START + MINUTE);
        // Finished, a name is begun again at the start given.
        await store.finishJob(A, 'file 64:12');
        await store.nameJob(A, 'file 64:12', START + MINUTE);
        expect(await store.jobSince(A, 'file 64:12')).toBe(START + MINUTE);
      });

      it('continues an unfinished job from its start; once finished, the next run begins a new one', async () => {
        expect(await store.beginJob(A, 'nightly')).toBe(START);
        await later(HOUR);
        expect(await store.beginJob(A, 'nightly')).toBe(START);
        expect(await store.beginJob(A, 'weekly')).toBe(START + HOUR);
        expect(await store.beginJob(B, 'nightly')).toBe(START + HOUR);
        await store.finishJob(A, 'nightly');
        await later(DAY);
        expect(await store.beginJob(A, 'nightly')).toBe(START + HOUR + DAY);
        expect(await store.beginJob(B, 'nightly')).toBe(START + HOUR);
      });

      it('begins no two jobs of an account at the same millisecond, however many begin at once (their claims are owned by their starts)', async () => {
        expect(await store.beginJob(A, 'a.csv')).toBe(START);
        expect(await store.beginJob(A, 'b.csv')).toBe(START + 1);
        const starts = await Promise.all(['c', 'd', 'e', 'f', 'g', 'h'].map((name) => store.beginJob(A, `${name}.csv`)));
        expect(new Set([START, START + 1, ...starts]).size).toBe(8);
        // Another account's jobs are its own.
        expect(await store.beginJob(B, 'a.csv')).toBe(START);
      });

      it('says when an unfinished job began without beginning one (an estimate of its next run)', async () => {
        expect(await store.jobSince(A, 'nightly')).toBeUndefined();
        expect(await store.beginJob(A, 'nightly')).toBe(START);
        await later(HOUR);
        expect(await store.jobSince(A, 'nightly')).toBe(START);
        expect(await store.jobSince(B, 'nightly')).toBeUndefined();
        await store.finishJob(A, 'nightly');
        expect(await store.jobSince(A, 'nightly')).toBeUndefined();
        expect(await store.beginJob(A, 'nightly')).toBe(START + HOUR);
      });
    });

    describe('spend', () => {
      const day = (d: number, hour = 1) => Date.UTC(2026, 9, d, hour);

      beforeEach(async () => {
        const spent = (at: number, run: string, overrides: Parameters<typeof request>[2] = {}) =>
          store.record({
            request: request(at, run, { items: 100, components: 100, billed: 90, cost: 22.5, ...overrides }),
            windows: [],
            answers: [],
          });
        await spent(day(30), 'run-1');
        await spent(day(30, 2), 'run-1', { status: 429, billed: 0, cost: 0 });
        await spent(day(31, 23), 'run-2', { endpoint: 'property/value,property/school', components: 200, billed: 150, cost: 0.1 });
        await store.recordReuse({
          at: Date.UTC(2026, 10, 1, 0, 30),
          run: 'run-3',
          account: A,
          endpoint: 'property/value',
          rows: 100,
          saved: 25,
        });
        await spent(Date.UTC(2026, 10, 1, 1), 'run-3', { items: 10, components: 10, billed: 10, cost: 2.5 });
        await spent(day(30), 'run-b', { account: B });
      });

      it('totals requests, components, billed sections, cost, rows from the store and their price', async () => {
        expect((await store.usage({ by: 'month', account: A })).total).toEqual({
          requests: 4,
          components: 410,
          billed: 250,
          cost: 25.1,
          fromStore: 100,
          saved: 25,
        });
        expect((await store.usage({ by: 'month' })).total.requests).toBe(5);
        expect(await store.usage({ by: 'month', account: 'https://never.example.com key:0' })).toEqual({
          total: { requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 },
          rows: [],
        });
      });

      it('groups by UTC day, month, endpoint and run, and counts from --since on', async () => {
        const keys = async (by: 'day' | 'month' | 'endpoint' | 'run') => (await store.usage({ by, account: A })).rows.map((row) => row.key);
        expect(await keys('day')).toEqual(['2026-10-30', '2026-10-31', '2026-11-01']);
        expect(await keys('month')).toEqual(['2026-10', '2026-11']);
        expect(await keys('endpoint')).toEqual(['property/value', 'property/value,property/school']);
        expect(await keys('run')).toEqual(['run-1', 'run-2', 'run-3']);
        expect((await store.usage({ by: 'month', account: A })).rows[1]).toEqual({
          key: '2026-11',
          requests: 1,
          components: 10,
          billed: 10,
          cost: 2.5,
          fromStore: 100,
          saved: 25,
        });
        const since = await store.usage({ by: 'day', account: A, since: Date.UTC(2026, 9, 31) });
        expect(since.rows.map((row) => row.key)).toEqual(['2026-10-31', '2026-11-01']);
        expect(since.total.requests).toBe(2);
      });

      it('gives the cost of the UTC month holding its clock’s now, per account (--max-cost-month)', async () => {
        expect(await store.monthToDateCost(A)).toBe(2.5);
        expect(await store.monthToDateCost(B)).toBe(0);
        expect(await store.monthToDateCost('https://never.example.com key:0')).toBe(0);
        await later(Date.UTC(2026, 11, 1) - START);
        expect(await store.monthToDateCost(A)).toBe(0);
      });

      it('sums money exactly', async () => {
        for (let i = 0; i < 10; i += 1)
          await store.record({
            request: request(Date.UTC(2026, 9, 5, 0, i), 'cents', { account: B, cost: 0.1 }),
            windows: [],
            answers: [],
          });
        expect((await store.usage({ by: 'run', account: B })).rows.find((row) => row.key === 'cents')?.cost).toBe(1);
      });

      it('names the accounts it holds anything for', async () => {
        expect(await store.accounts()).toEqual([A, B]);
        await store.record(entryOf([], { account: 'https://c.example.com key:cccccccccccccccc' }));
        expect(await store.accounts()).toEqual([A, B, 'https://c.example.com key:cccccccccccccccc']);
      });
    });

    describe('windows', () => {
      const windows = (now: number) => [
        { periodSeconds: 1, limit: 20, remaining: 4, resetAt: now + 1000 },
        { periodSeconds: 86_400, limit: 15_000, remaining: 9_000, resetAt: now + HOUR },
      ];

      it('gives back what the service last reported, each window renewed once its reset has passed', async () => {
        expect(await store.loadWindows(A)).toBeUndefined();
        await store.record(entryOf([], { windows: windows(START) }));
        expect(await store.loadWindows(A)).toEqual(windows(START));
        expect(await store.loadWindows(B)).toBeUndefined();
        await later(2500);
        expect(await store.loadWindows(A)).toEqual([
          { periodSeconds: 1, limit: 20, remaining: 20, resetAt: START + 3000 },
          windows(START)[1],
        ]);
      });

      it('keeps the later of two reports, learns nothing from none, and forgets windows after a week', async () => {
        await store.record(entryOf([], { windows: windows(START) }));
        await store.record(entryOf([], { windows: [{ ...windows(START)[0]!, remaining: 0 }], arrivedAt: START - 5000 }));
        await store.record(entryOf([], { windows: [] }));
        expect((await store.loadWindows(A))?.[0]?.remaining).toBe(4);
        await later(7 * DAY);
        expect(await store.loadWindows(A)).toBeDefined();
        await later(1);
        expect(await store.loadWindows(A)).toBeUndefined();
      });
    });

    describe('upkeep', () => {
      const fill = async (account: string, addresses: number, target: typeof VALUE) => {
        const answers = Array.from({ length: addresses }, (_, i) => {
          const ref = itemRefOf(target, home(`${i} Main St`));
          return answerOf(
            ref,
            ref.sections.map(() => section(i)),
          );
        });
        await store.record(entryOf(answers, { account }));
      };

      beforeEach(async () => {
        await fill(A, 30, VALUE_AND_RENTAL);
        await later(99 * DAY);
        await fill(A, 10, VALUE);
        await store.record(entryOf([], { windows: [{ periodSeconds: 60, limit: 250, remaining: 200, resetAt: clock.now() + 1000 }] }));
        await later(DAY);
        await fill(B, 5, RENTAL);
        await store.record(
          entryOf([], { account: B, windows: [{ periodSeconds: 60, limit: 250, remaining: 200, resetAt: clock.now() + 1000 }] }),
        );
      });

      it('says what it holds per account and endpoint, of all accounts or of one', async () => {
        const info = await store.info();
        expect(info.location).toBe(store.location);
        expect(info.requests).toBe(5);
        const now = clock.now();
        expect(info.answers).toEqual([
          { account: A, endpoint: 'v2/property/rental_value', answers: 30, oldest: START, newest: START },
          { account: A, endpoint: 'v2/property/value', answers: 30, oldest: START, newest: now - DAY },
          { account: B, endpoint: 'v2/property/rental_value', answers: 5, oldest: now, newest: now },
        ]);
        const ofB = await store.info(B);
        expect(ofB.answers.map((row) => row.account)).toEqual([B]);
        expect(ofB.requests).toBe(2);
        expect(await store.info('https://never.example.com key:0')).toMatchObject({ answers: [], requests: 0 });
      });

      it('prunes the answers older than asked, and only those', async () => {
        // Items 0-9 were answered again a day ago for property/value: their old rental_value goes.
        expect(await store.prune(90 * DAY)).toBe(50);
        const forever = { maxAgeMs: 1000 * DAY };
        const [three, twenty] = await store.find(
          A,
          [itemRefOf(VALUE_AND_RENTAL, home('3 Main St')), itemRefOf(VALUE, home('20 Main St'))],
          forever,
        );
        expect(three!.sections.map((kept) => kept?.body)).toEqual([section(3), undefined]);
        expect(twenty!.sections).toEqual([undefined]);
        expect((await store.info()).answers.map((row) => [row.endpoint, row.answers])).toEqual([
          ['v2/property/value', 10],
          ['v2/property/rental_value', 5],
        ]);
        expect(await store.prune(90 * DAY)).toBe(0);
      });

      it('clears one account’s answers, claims and windows, or every account’s; spend records stay', async () => {
        const claim = claimsOf(itemRefOf(VALUE, home('1 Main St')));
        await store.claim(A, 'run-1', claim, {}, HOUR);
        expect(await store.clear({ account: A })).toBe(60);
        expect(await store.loadWindows(A)).toBeUndefined();
        expect(await store.loadWindows(B)).toBeDefined();
        expect(await store.held(A, 'run-2', claim)).toEqual([false]);
        expect((await store.info()).answers.map((row) => row.account)).toEqual([B]);
        expect(await store.clear({ account: 'https://never.example.com key:0' })).toBe(0);
        expect(await store.clear({ allAccounts: true })).toBe(5);
        expect((await store.info()).answers).toEqual([]);
        expect(await store.loadWindows(B)).toBeUndefined();
        expect((await store.usage({ by: 'run' })).total.requests).toBe(5);
      });
    });

    it('has no problems to report when none was met', async () => {
      await store.record(entryOf([answerOf(itemRefOf(VALUE, home('405 Dyer Ave')), [section(1)])]));
      await store.find(A, [itemRefOf(VALUE, home('405 Dyer Ave'))], { maxAgeMs: HOUR });
      expect(store.problems()).toEqual({ damaged: 0, notes: [] });
    });
  });
}
