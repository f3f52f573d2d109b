import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountId, openStore, type Store } from '../../src/store/index.js';
import { itemKey, propertyChunk } from './helpers/chunks.js';
import { tempStorePath } from './helpers/temp-store.js';

const KEY = 'live-key-Q7ZX9WV2';
const SECRET = 'secret-8HF3KD0PLM';
const ACCOUNT = accountId(new URL('https://api.example.com'), KEY);
const VALUE_AND_SCHOOL = ['property/value', 'property/school'];
const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 3, 1, 15);

describe('stored answers', () => {
  let path: string;
  let store: Store;

  beforeEach(async () => {
    path = tempStorePath();
    store = await openStore(path);
  });
  afterEach(() => store.close());

  it('gives back the chunk as received, byte for byte, with each row’s own meta', () => {
    const chunk = propertyChunk('405 Dyer Ave', VALUE_AND_SCHOOL, { meta: 'crm-1' });
    const answers = store.answers(ACCOUNT);
    expect(answers.put(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, chunk, NOW)).toBe(true);
    const lookup = { maxAgeMs: HOUR, now: NOW + 1000 };
    expect(JSON.stringify(answers.get(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, { ...lookup, meta: 'crm-1' }))).toBe(
      JSON.stringify(chunk),
    );
    expect(answers.get(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, { ...lookup, meta: 'crm-7' })?.meta).toBe('crm-7');
    expect(answers.get(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, lookup)).not.toHaveProperty('meta');
    expect(answers.get(itemKey('213 Bentley Hill Dr'), VALUE_AND_SCHOOL, lookup)).toBeUndefined();
  });

  it('reuses only answers younger than --max-age', () => {
    const answers = store.answers(ACCOUNT);
    answers.put(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, propertyChunk('405 Dyer Ave', VALUE_AND_SCHOOL), NOW);
    expect(answers.get(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, { maxAgeMs: HOUR, now: NOW + HOUR - 1 })).toBeDefined();
    expect(answers.get(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, { maxAgeMs: HOUR, now: NOW + HOUR })).toBeUndefined();
  });

  it('keeps each section on its own: a run of one endpoint reuses it from an mget, not the other way round', () => {
    const answers = store.answers(ACCOUNT);
    answers.put(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, propertyChunk('405 Dyer Ave', VALUE_AND_SCHOOL), NOW);
    const lookup = { maxAgeMs: HOUR, now: NOW };
    expect(JSON.stringify(answers.get(itemKey('405 Dyer Ave'), ['property/value'], lookup))).toBe(
      JSON.stringify(propertyChunk('405 Dyer Ave', ['property/value'])),
    );
    expect(answers.get(itemKey('405 Dyer Ave'), ['property/value', 'property/rental_value'], lookup)).toBeUndefined();
    // A newer answer of one section leaves the other as it was, and both are reused together.
    answers.put(
      itemKey('405 Dyer Ave'),
      ['property/value'],
      propertyChunk('405 Dyer Ave', ['property/value'], { price: 500_000 }),
      NOW + 10,
    );
    const both = answers.get(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, lookup);
    expect(both?.['property/value']).toMatchObject({ result: { value: { price_mean: 500_000 } } });
    expect(both?.['property/school']).toMatchObject({ api_code: 204 });
  });

  it('keeps the newer answer when an older one is written after it (a one-off recorded late), adding only what it lacks', () => {
    const answers = store.answers(ACCOUNT);
    const lookup = { maxAgeMs: HOUR, now: NOW + 20 };
    answers.put(
      itemKey('405 Dyer Ave'),
      ['property/value'],
      propertyChunk('405 Dyer Ave', ['property/value'], { price: 500_000 }),
      NOW + 10,
    );
    answers.put(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, propertyChunk('405 Dyer Ave', VALUE_AND_SCHOOL, { price: 410_000 }), NOW);
    const both = answers.get(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, lookup);
    expect(both?.['property/value']).toMatchObject({ result: { value: { price_mean: 500_000 } } });
    expect(both?.['property/school']).toMatchObject({ api_code: 204 });
    // The item stays as young as its newest answer: --max-age counts from it.
    expect(answers.get(itemKey('405 Dyer Ave'), ['property/value'], { maxAgeMs: HOUR, now: NOW + HOUR + 5 })).toBeDefined();
  });

  it('never keeps errors, nor mixes accounts', () => {
    const answers = store.answers(ACCOUNT);
    const failed = { ...propertyChunk('405 Dyer Ave', ['property/value']), 'property/value': { api_code: 500, result: null } };
    expect(answers.put(itemKey('405 Dyer Ave'), ['property/value'], failed, NOW)).toBe(false);
    expect(answers.get(itemKey('405 Dyer Ave'), ['property/value'], { maxAgeMs: HOUR, now: NOW })).toBeUndefined();
    answers.put(itemKey('405 Dyer Ave'), ['property/value'], propertyChunk('405 Dyer Ave', ['property/value']), NOW);
    const testKey = store.answers(accountId(new URL('https://api.example.com'), `test_${KEY}`));
    expect(testKey.get(itemKey('405 Dyer Ave'), ['property/value'], { maxAgeMs: HOUR, now: NOW })).toBeUndefined();
  });

  it('writes a response’s answers and its request record in one transaction, or none of them', () => {
    const answers = store.answers(ACCOUNT);
    const addresses = Array.from({ length: 100 }, (_, i) => `${i + 1} Main St`);
    store.transaction(() => {
      for (const address of addresses) answers.put(itemKey(address), VALUE_AND_SCHOOL, propertyChunk(address, VALUE_AND_SCHOOL), NOW);
      store.recordRequest({
        at: NOW,
        run: 'r1',
        account: ACCOUNT,
        endpoint: 'property/value,property/school',
        items: 100,
        components: 200,
        status: 200,
        billed: 100,
        cost: 25,
      });
    });
    expect(addresses.every((address) => answers.get(itemKey(address), VALUE_AND_SCHOOL, { maxAgeMs: HOUR, now: NOW }))).toBe(true);
    expect(() =>
      store.transaction(() => {
        answers.put(itemKey('9 Lost Rd'), VALUE_AND_SCHOOL, propertyChunk('9 Lost Rd', VALUE_AND_SCHOOL), NOW);
        throw new Error('the output failed');
      }),
    ).toThrow('the output failed');
    expect(answers.get(itemKey('9 Lost Rd'), VALUE_AND_SCHOOL, { maxAgeMs: HOUR, now: NOW })).toBeUndefined();
    // A new account and endpoint numbered in the rolled-back transaction are numbered again.
    const other = store.answers('https://other.example.com key:0000');
    expect(() =>
      store.transaction(() => {
        other.put(itemKey('1 A St'), ['property/flood'], propertyChunk('1 A St', ['property/flood']), NOW);
        throw new Error('undone');
      }),
    ).toThrow('undone');
    other.put(itemKey('1 A St'), ['property/flood'], propertyChunk('1 A St', ['property/flood']), NOW);
    expect(other.get(itemKey('1 A St'), ['property/flood'], { maxAgeMs: HOUR, now: NOW })).toBeDefined();
  });

  it('holds neither the key nor the secret anywhere in its files', async () => {
    const answers = store.answers(ACCOUNT);
    store.transaction(() => {
      answers.put(itemKey('405 Dyer Ave'), VALUE_AND_SCHOOL, propertyChunk('405 Dyer Ave', VALUE_AND_SCHOOL), NOW);
      store.recordRequest({
        at: NOW,
        run: 'r1',
        account: ACCOUNT,
        endpoint: 'property/value',
        items: 1,
        components: 2,
        status: 200,
        billed: 1,
        cost: 0.25,
      });
      store.saveWindows(ACCOUNT, [{ periodSeconds: 60, limit: 250, remaining: 248, resetAt: NOW + 30_000 }], NOW);
    });
    // Open, with a write-ahead log, and closed, folded into the file.
    const files = () => readdirSync(dirname(path)).map((name) => readFileSync(join(dirname(path), name)));
    for (const bytes of files()) for (const secret of [KEY, SECRET]) expect(bytes.includes(secret)).toBe(false);
    store.close();
    for (const bytes of files()) for (const secret of [KEY, SECRET]) expect(bytes.includes(secret)).toBe(false);
    store = await openStore(path);
  });
});
