import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTICE_IDS } from '../../src/catalog/enums.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { addresses, call, dataSandbox, VALMONTE } from './http.js';

const ITEMS = addresses(60, 'Formula');
const NOW = Date.UTC(2025, 6, 15, 12);

/** The api_code 0 results of one endpoint for ITEMS, with the items they belong to. */
async function results(sandbox: RunningSandbox, endpoint: string, query: Record<string, string | number> = {}) {
  const reply = await call(sandbox, `/v2/${endpoint}`, { body: ITEMS, query });
  expect(reply.status, reply.text).toBe(200);
  return reply.json
    .map((chunk: Record<string, any>, index: number) => ({ item: ITEMS[index]!, section: chunk[endpoint], chunk }))
    .filter(({ section }: { section: { api_code: number } }) => section.api_code === 0)
    .map(({ item, section, chunk }: { item: unknown; section: { result: any }; chunk: Record<string, any> }) => ({
      item,
      result: section.result,
      chunk,
    }));
}

const band = (mean: number, fsd: number) => [Math.round(mean * (1 + fsd)), Math.round(mean * (1 - fsd))];

describe("the spec's formulas hold in generated results", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox({ now: () => NOW });
  });
  afterAll(() => sandbox.close());

  it('value, rental_value and land_value bands: upr = round(mean(1+fsd)), lwr = round(mean(1-fsd))', async () => {
    for (const { result } of await results(sandbox, 'property/value')) {
      expect([result.value.price_upr, result.value.price_lwr]).toEqual(band(result.value.price_mean, result.value.fsd));
    }
    for (const { result } of await results(sandbox, 'property/rental_value')) {
      expect([result.price_upr, result.price_lwr]).toEqual(band(result.price_mean, result.fsd));
    }
    for (const { result } of await results(sandbox, 'property/land_value')) {
      expect([result.land_value.value_upr, result.land_value.value_lwr]).toEqual(band(result.land_value.value_mean, result.land_value.fsd));
    }
  });

  it('rental_yield agrees with value and rental_value for the same address', async () => {
    const values = await results(sandbox, 'property/value');
    const rents = await results(sandbox, 'property/rental_value');
    const yields = await results(sandbox, 'property/rental_yield');
    expect(yields.length).toBeGreaterThan(50);
    for (const { item, result } of yields) {
      const value = values.find((entry: { item: unknown }) => entry.item === item).result.value.price_mean;
      const rent = rents.find((entry: { item: unknown }) => entry.item === item).result.price_mean;
      expect(result.value).toBe(value);
      expect(result.monthly_rent).toBe(rent);
      expect(result.gross_yield).toBeCloseTo((rent * 12) / value, 3);
    }
  });

  it('prices follow the area: 902xx California above Baltimore', async () => {
    const median = async (zipcode: string) => {
      const items = addresses(30, 'Scale').map((item) => ({ ...item, zipcode }));
      const reply = await call(sandbox, '/v2/property/value', { body: items });
      const prices = reply.json
        .filter((chunk: any) => chunk['property/value'].api_code === 0)
        .map((chunk: any) => chunk['property/value'].result.value.price_mean);
      return prices.sort((a: number, b: number) => a - b)[Math.floor(prices.length / 2)];
    };
    expect(await median('90274')).toBeGreaterThan(2.5 * (await median('21201')));
  });

  it('mortgage liens: mortgage_years is the whole years from record_date to due_date', async () => {
    let liens = 0;
    // Plausibility, not a spec rule: an owner borrows at purchase and refinances every few years;
    // all liens on record span the owners of 25 years, and about one property in fifty has 7 to 11.
    const plausibleCounts = { 'property/mortgage_lien': 6, 'property/mortgage_lien_all': 12 };
    for (const [endpoint, mostLiens] of Object.entries(plausibleCounts)) {
      for (const { result } of await results(sandbox, endpoint)) {
        expect(result.length).toBeLessThanOrEqual(mostLiens);
        for (const lien of result) {
          liens += 1;
          const recorded = new Date(lien.record_date);
          const due = new Date(lien.due_date);
          let years = due.getUTCFullYear() - recorded.getUTCFullYear();
          if (
            due.getUTCMonth() < recorded.getUTCMonth() ||
            (due.getUTCMonth() === recorded.getUTCMonth() && due.getUTCDate() < recorded.getUTCDate())
          )
            years -= 1;
          expect(lien.mortgage_years).toBe(years);
          expect(lien.arm_index === null).toBe(lien.lien_type !== 'arm');
        }
      }
    }
    expect(liens).toBeGreaterThan(20);
  });

  it('ltv_details: totals, ratios and equity from the current liens and the value band', async () => {
    const all = await results(sandbox, 'property/ltv_details');
    expect(all.some(({ result }: { result: any }) => result.current_liens.length > 1)).toBe(true);
    for (const { result } of all) {
      const liens = result.current_liens;
      const total = liens.reduce((sum: number, lien: any) => sum + lien.outstanding_principal, 0);
      expect(result.total_lien).toBe(total);
      expect(result.total_monthly_payments).toBe(liens.reduce((sum: number, lien: any) => sum + lien.monthly_payment, 0));
      expect([result.property_value_upr, result.property_value_lwr]).toEqual(band(result.property_value_mean, result.fsd));
      expect(result.ltv_upr).toBeCloseTo(total / result.property_value_lwr, 3);
      expect(result.ltv_lwr).toBeCloseTo(total / result.property_value_upr, 3);
      expect(result.ltv_mean).toBeCloseTo(total / result.property_value_mean, 3);
      expect(result.total_equity_lwr).toBe(result.property_value_lwr - total);
      expect(result.total_equity_mean).toBe(result.property_value_mean - total);
      expect(result.total_equity_upr).toBe(result.property_value_upr - total);
      expect(result.total_notice_ids).toEqual([...new Set(liens.flatMap((lien: any) => lien.notice_ids))].sort((a: any, b: any) => a - b));
      expect(liens.map((lien: any) => lien.due_date)).toEqual(liens.map((lien: any) => lien.due_date).sort());
      for (const lien of liens) expect(lien.principal_paid_as_of_date).toBe(lien.lien_amount - lien.outstanding_principal);
      // Only the notice ids the spec's table defines.
      for (const id of result.total_notice_ids) expect(NOTICE_IDS).toContain(id);
    }
  });

  it('value_within_block: client ranges only when the client figures are sent', async () => {
    for (const endpoint of ['property/value_within_block', 'property/rental_value_within_block']) {
      const plain = await results(sandbox, endpoint);
      for (const { result } of plain) {
        expect(result.client_value_percentile_range).toBeNull();
        expect(result.client_value_sqft_percentile_range).toBeNull();
      }
      const withValue = await results(sandbox, endpoint, { client_value: 5_000_000 });
      for (const [index, { result }] of withValue.entries()) {
        expect(result.client_value_percentile_range).toMatchObject({ name: expect.any(String) });
        expect(result.client_value_sqft_percentile_range).toBeNull();
        expect(result.service_value_percentile_range).toEqual(plain[index].result.service_value_percentile_range);
      }
    }
  });

  it('value_details_adjusted: adjusted_*_to only for the adjustments sent, value moves with them', async () => {
    const value = (await call(sandbox, '/v2/property/value', { query: VALMONTE })).json[0]['property/value'].result.value.price_mean;
    const beds = (await call(sandbox, '/v2/property/value_details_adjusted', { query: { ...VALMONTE, add_beds: 1 } })).json[0];
    const result = beds['property/value_details_adjusted'].result;
    expect(Object.keys(result)).toEqual(['adjusted_value_to', 'adjusted_beds_to']);
    expect(result.adjusted_value_to).toBeGreaterThan(value);
    const details = (await call(sandbox, '/v2/property/details', { query: VALMONTE })).json[0]['property/details'].result.property;
    expect(result.adjusted_beds_to).toBe(details.number_of_bedrooms + 1);
    const both = (await call(sandbox, '/v2/property/value_details_adjusted', { query: { ...VALMONTE, add_sqft: 200, add_pools: 1 } }))
      .json[0];
    expect(Object.keys(both['property/value_details_adjusted'].result)).toEqual([
      'adjusted_value_to',
      'adjusted_sqft_to',
      'adjusted_pools_to',
    ]);
    expect(both['property/value_details_adjusted'].result.adjusted_sqft_to).toBe(details.building_area_sq_ft + 200);
  });

  it('value_hpi_adjusted: current month by default, client object only with client_value', async () => {
    const plain = (await results(sandbox, 'property/value_hpi_adjusted'))[0].result;
    expect(plain.client_value_adjusted).toBeNull();
    expect(plain.service_value_adjusted).toMatchObject({ from_date: '2025-07-01', to_date: '2025-07-01' });
    expect(Object.values(plain.service_value_adjusted.adjusted_by)).toEqual(Array(5).fill(plain.service_value_adjusted.from_value));
    const moved = (
      await results(sandbox, 'property/value_hpi_adjusted', {
        adjust_to_date: '2020-01-01',
        client_value: 400000,
        client_date: '2019-01-01',
      })
    )[0].result;
    expect(moved.client_value_adjusted).toMatchObject({ from_value: 400000, from_date: '2019-01-01', to_date: '2020-01-01' });
    expect(Object.keys(moved.client_value_adjusted.adjusted_by)).toEqual(['block', 'blockgroup', 'zip', 'msa', 'state']);
    expect(moved.service_value_adjusted.to_date).toBe('2020-01-01');
    // Each level's index follows one path: a level that rose from 2019 to 2020 rose from 2020 to now, and the other way round.
    for (const level of Object.keys(moved.client_value_adjusted.adjusted_by)) {
      const rose = moved.client_value_adjusted.adjusted_by[level] > 400000;
      expect(moved.service_value_adjusted.adjusted_by[level] < moved.service_value_adjusted.from_value, level).toBe(rose);
    }
  });

  it('forecasts drift smoothly from the current value', async () => {
    const values = await results(sandbox, 'property/value');
    for (const [index, { result }] of (await results(sandbox, 'property/value_forecast')).entries()) {
      const mean = values[index].result.value.price_mean;
      const points = Object.values(result).map((point: any) => point.value / mean);
      for (const ratio of points) expect(Math.abs(ratio - 1)).toBeLessThan(0.25);
      const increasing = points.every((ratio, at) => at === 0 || ratio >= points[at - 1]!);
      const decreasing = points.every((ratio, at) => at === 0 || ratio <= points[at - 1]!);
      expect(increasing || decreasing).toBe(true);
    }
  });

  it('listing endpoints report one listing per property: 204 together, same date and price, listed only when live', async () => {
    const live = ['Coming Soon', 'Active', 'Pending', 'Contingent'];
    const components = 'property/listing_status,property/on_market,property/rental_listing_status,property/rental_on_market';
    const reply = await call(sandbox, '/v2/property/component_mget', { query: { components }, body: ITEMS });
    let considerations = 0;
    for (const chunk of reply.json) {
      for (const [status, market] of [
        ['property/listing_status', 'property/on_market'],
        ['property/rental_listing_status', 'property/rental_on_market'],
      ] as const) {
        expect(chunk[status].api_code).toBe(chunk[market].api_code);
        if (chunk[status].api_code !== 0) continue;
        const [listing, onMarket] = [chunk[status].result, chunk[market].result];
        expect([onMarket.listing_date, onMarket.listing_price, onMarket.has_price_considerations]).toEqual([
          listing.listing_date,
          listing.listing_price,
          listing.has_price_considerations,
        ]);
        expect(onMarket.currently_listed).toBe(live.includes(listing.listing_status));
        if (listing.listing_status_date) expect(listing.listing_status_date >= listing.listing_date).toBe(true);
        if (listing.has_price_considerations) considerations += 1;
      }
    }
    expect(considerations).toBeLessThan(ITEMS.length / 4);
  });

  it('geocode result is true; census agrees with address_info; school lists hold 1 to 3 per stage', async () => {
    for (const { result } of await results(sandbox, 'property/geocode')) expect(result).toBe(true);
    for (const { result, chunk } of await results(sandbox, 'property/census')) {
      expect(result.block).toBe(chunk.address_info.block_id);
      expect(result.block_group).toBe(chunk.address_info.blockgroup_id);
      expect(result.fips).toBe(chunk.address_info.county_fips);
      expect(result.msa).toBe(chunk.address_info.msa);
    }
    for (const { result } of await results(sandbox, 'property/school')) {
      for (const stage of ['elementary', 'middle', 'high']) {
        expect(result.school[stage].length).toBeGreaterThanOrEqual(1);
        expect(result.school[stage].length).toBeLessThanOrEqual(3);
        for (const school of result.school[stage]) expect(school.education_level).toEqual([stage]);
      }
    }
  });

  it('block statistics are ordered and crime totals add up', async () => {
    const blocks = ['060376703022003', '245102401001001', '360610076001000'].map((block_id) => ({ block_id }));
    const distribution = await call(sandbox, '/v2/block/value_distribution', { body: blocks, query: { property_type: 'CND' } });
    for (const chunk of distribution.json) {
      const result = chunk['block/value_distribution'].result;
      expect(result.property_type).toBe('CND');
      const ordered = [
        result.value_min,
        result.value_5,
        result.value_25,
        result.value_50,
        result.value_75,
        result.value_95,
        result.value_max,
      ];
      expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
    }
    const crime = await call(sandbox, '/v2/block/crime', { body: blocks });
    for (const chunk of crime.json) {
      const result = chunk['block/crime'].result;
      expect(result.all.incidents).toBe(result.property.incidents + result.violent.incidents + result.other.incidents);
    }
  });
});
