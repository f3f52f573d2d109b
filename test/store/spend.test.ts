import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type RequestRecord, type Store } from '../../src/store/index.js';
import { tempStorePath } from './helpers/temp-store.js';

const A = 'https://api.example.com key:aaaaaaaaaaaaaaaa';
const B = 'https://api.example.com key:bbbbbbbbbbbbbbbb';
const day = (d: number, hour = 1) => Date.UTC(2026, 9, d, hour);

function request(at: number, run: string, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    at,
    run,
    account: A,
    endpoint: 'property/value',
    items: 100,
    components: 100,
    status: 200,
    billed: 90,
    cost: 22.5,
    ...overrides,
  };
}

describe('spend', () => {
  let store: Store;

  beforeEach(async () => {
    store = await openStore(tempStorePath());
    store.recordRequest(request(day(30), 'run-1'));
    store.recordRequest(request(day(30, 2), 'run-1', { status: 429, billed: 0, cost: 0 }));
    store.recordRequest(
      request(day(31, 23), 'run-2', { endpoint: 'property/value,property/school', components: 200, billed: 150, cost: 0.1 }),
    );
    store.recordFromStore({ at: Date.UTC(2026, 10, 1, 0, 30), run: 'run-3', account: A, endpoint: 'property/value', rows: 100, saved: 25 });
    store.recordRequest(request(Date.UTC(2026, 10, 1, 1), 'run-3', { items: 10, components: 10, billed: 10, cost: 2.5 }));
    store.recordRequest(request(day(30), 'run-b', { account: B }));
  });
  afterEach(() => store.close());

  it('totals requests, components, billed sections, cost, rows from the store and their price', () => {
    expect(store.usage({ by: 'month', account: A }).total).toEqual({
      requests: 4,
      components: 410,
      billed: 250,
      cost: 25.1,
      fromStore: 100,
      saved: 25,
    });
    expect(store.usage({ by: 'month' }).total.requests).toBe(5);
    expect(store.usage({ by: 'month', account: 'https://never.example.com key:0' })).toEqual({
      total: { requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 },
      rows: [],
    });
  });

  it('groups by UTC day, month, endpoint and run', () => {
    const keys = (by: 'day' | 'month' | 'endpoint' | 'run') => store.usage({ by, account: A }).rows.map((row) => row.key);
    expect(keys('day')).toEqual(['2026-10-30', '2026-10-31', '2026-11-01']);
    expect(keys('month')).toEqual(['2026-10', '2026-11']);
    expect(keys('endpoint')).toEqual(['property/value', 'property/value,property/school']);
    expect(keys('run')).toEqual(['run-1', 'run-2', 'run-3']);
    expect(store.usage({ by: 'month', account: A }).rows[1]).toEqual({
      key: '2026-11',
      requests: 1,
      components: 10,
      billed: 10,
      cost: 2.5,
      fromStore: 100,
      saved: 25,
    });
  });

  it('counts from --since on', () => {
    const usage = store.usage({ by: 'day', account: A, since: Date.UTC(2026, 9, 31) });
    expect(usage.rows.map((row) => row.key)).toEqual(['2026-10-31', '2026-11-01']);
    expect(usage.total.requests).toBe(2);
  });

  it('keeps the month-to-date cost of each account for --max-cost-month', () => {
    expect(store.monthToDateCost(A, Date.UTC(2026, 9, 31, 23, 59))).toBeCloseTo(22.6, 9);
    expect(store.monthToDateCost(A, Date.UTC(2026, 10, 15))).toBe(2.5);
    expect(store.monthToDateCost(B, Date.UTC(2026, 10, 15))).toBe(0);
    expect(store.monthToDateCost('https://never.example.com key:0', Date.UTC(2026, 10, 15))).toBe(0);
  });

  it('sums money exactly', () => {
    for (let i = 0; i < 10; i += 1) store.recordRequest(request(day(5), 'cents', { account: B, cost: 0.1 }));
    expect(store.usage({ by: 'run', account: B }).rows.find((row) => row.key === 'cents')?.cost).toBe(1);
  });
});
