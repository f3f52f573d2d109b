import type { Frame } from '../../../src/model/chunk-frame.js';
import { targetForList } from '../../../src/model/query-target.js';
import type { ItemRef, SectionRef } from '../../../src/model/section-refs.js';
import type { KeptAnswer, RequestRecord, SectionClaim, StoreEntry } from '../../../src/store/index.js';

/** What the suite's stores are asked for, as the commands would ask: keys from the catalog (model/section-refs.ts). */
export const VALUE = targetForList('property/value');
export const RENTAL = targetForList('property/rental_value');
export const VALUE_AND_RENTAL = targetForList('property/value,property/rental_value');
export const RENTAL_AND_VALUE = targetForList('property/rental_value,property/value');
export const WITHIN_AND_RENTAL = targetForList('property/value_within_block,property/rental_value');
export const WITHIN = targetForList('property/value_within_block');
export const DISTRIBUTION = targetForList('block/value_distribution');

export const A = 'https://api.example.com key:aaaaaaaaaaaaaaaa';
export const B = 'https://api.example.com key:bbbbbbbbbbbbbbbb';

type Item = Record<string, string | number>;

/** A property item as the preparer gives it: keys in name order. */
export const home = (address: string, extra: Item = {}): Item =>
  Object.fromEntries(Object.entries({ address, zipcode: '21136', ...extra }).sort(([a], [b]) => (a < b ? -1 : 1)));

/** A section as the service sends one: its figure tells answers apart. */
export const section = (figure: number) => ({
  api_code: 0,
  api_code_description: 'ok',
  result: { value: { price_mean: figure, price_upr: figure + 40_000, price_lwr: figure - 40_000, fsd: 0.1 } },
});

export const NO_CONTENT = { api_code: 204, api_code_description: 'no content', result: null };

/** The chunk's other members, as keptParts leaves them. */
export const frameOf = (address: string): Frame => [
  ['address_info', { address_full: `${address}, Reisterstown, MD 21136`, zipcode: '21136', status: { match: true } }],
  null,
];

/** An item's answer for a ref: one body per section asked, in order. */
export function answerOf(ref: ItemRef, bodies: readonly unknown[], frame: Frame = frameOf(ref.item)): KeptAnswer {
  return { item: ref.item, frame, sections: ref.sections.map((sectionRef, i) => ({ ref: sectionRef, body: bodies[i] })) };
}

/** A claim on each section of a ref. */
export const claimsOf = (ref: ItemRef): SectionClaim[] => ref.sections.map((sectionRef: SectionRef) => ({ item: ref.item, ...sectionRef }));

export function request(at: number, run: string, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return { at, run, account: A, endpoint: 'property/value', items: 1, components: 1, status: 200, billed: 1, cost: 0.25, ...overrides };
}

let requests = 0;

/** One response's entry: a request never recorded before (its own run), unless the caller gives one. */
export function entryOf(answers: readonly KeptAnswer[], overrides: Partial<StoreEntry> & { account?: string } = {}): StoreEntry {
  requests += 1;
  const { account = A, ...rest } = overrides;
  return { request: request(requests, `run-${requests}`, { account, items: answers.length }), windows: [], answers, ...rest };
}
