import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { addresses, call, dataSandbox } from './http.js';

/** Answers that describe one world: a home's figures sit in its block's, an area's series on one path. */
describe('one world', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox();
  });
  afterAll(() => sandbox.close());

  const mget = async (components: string[], items: Array<Record<string, string>>) =>
    (await call(sandbox, '/v2/property/component_mget', { query: { components: components.join(',') }, body: items })).json.filter(
      (chunk: any) => chunk.address_info.status.match,
    );

  it("places a home's value in its block's own distribution for its type", async () => {
    const chunks = await mget(['property/value', 'property/value_within_block'], addresses(30, 'Within'));
    for (const chunk of chunks) {
      const { property_type, service_value_percentile_range: range } = chunk['property/value_within_block'].result;
      const value = chunk['property/value'].result.value.price_mean;
      const block = (
        await call(sandbox, '/v2/block/value_distribution', { query: { block_id: chunk.address_info.block_id, property_type } })
      ).json[0];
      const distribution = block['block/value_distribution'].result;
      if (range.low !== null) expect(value, range.name).toBeGreaterThanOrEqual(distribution[`value_${range.low}`] - 1);
      if (range.high !== null) expect(value, range.name).toBeLessThanOrEqual(distribution[`value_${range.high}`] + 1);
    }
  });

  it('answers block statistics without property_type as with its default, SFD', async () => {
    const query = { block_id: '245102401001001' };
    const plain = (await call(sandbox, '/v2/block/hcri', { query })).json[0]['block/hcri'];
    expect((await call(sandbox, '/v2/block/hcri', { query: { ...query, property_type: 'SFD' } })).json[0]['block/hcri']).toEqual(plain);
  });

  it('gives tribal_land per census block: neighbours in one block agree', async () => {
    const chunks = await mget(['property/census'], addresses(60, 'Tribal'));
    const byBlock = new Map<string, boolean>();
    let shared = 0;
    for (const chunk of chunks) {
      const { block, tribal_land: tribal } = chunk['property/census'].result;
      if (byBlock.has(block)) {
        shared++;
        expect(tribal).toBe(byBlock.get(block));
      }
      byBlock.set(block, tribal);
    }
    expect(shared).toBeGreaterThan(0);
  });

  it('gives listings statuses of their kind: no sale listing Leased, no rental Sold', async () => {
    const chunks = await mget(['property/listing_status', 'property/rental_listing_status'], addresses(100, 'Status'));
    const statuses = (endpoint: string) =>
      chunks.flatMap((chunk: any) => (chunk[endpoint].api_code === 0 ? [chunk[endpoint].result.listing_status] : []));
    expect(statuses('property/listing_status')).not.toContain('Leased');
    expect(statuses('property/rental_listing_status')).not.toContain('Sold');
    expect(new Set(statuses('property/listing_status')).size).toBeGreaterThan(3);
  });

  it("moves a ZIP's values along one path: its homes' forecasts, its HPI adjustment, its series and returns", async () => {
    const [chunk] = await mget(
      ['property/value', 'property/value_forecast', 'property/zip_hpi_historical', 'property/zip_hpi_ts'],
      [{ address: '43 Valmonte Plaza', zipcode: '90274' }],
    );
    const growth = chunk['property/zip_hpi_historical'].result.cagr_1yr;
    const value = chunk['property/value'].result.value.price_mean;
    expect(chunk['property/value_forecast'].result.month_12.value / value).toBeCloseTo(1 + growth, 3);
    const series = chunk['property/zip_hpi_ts'].result.time_series;
    expect(series[24].value / series[12].value).toBeCloseTo(1 + growth, 3);
    const adjusted = (
      await call(sandbox, '/v2/property/value_hpi_adjusted', {
        query: {
          address: '43 Valmonte Plaza',
          zipcode: '90274',
          client_value: 1_000_000,
          client_date: '2024-01-01',
          adjust_to_date: '2025-01-01',
        },
      })
    ).json[0];
    expect(adjusted['property/value_hpi_adjusted'].result.client_value_adjusted.adjusted_by.zip / 1_000_000).toBeCloseTo(1 + growth, 3);
  });

  it("scores an assessor's condition by the home's age", async () => {
    const chunks = await mget(['property/details'], addresses(40, 'Assessor'));
    for (const chunk of chunks) {
      const { year_built: built, building_condition_score: condition } = chunk['property/details'].result.property;
      if (built >= 2000) expect(condition, String(built)).toBeGreaterThanOrEqual(4);
      if (built < 1935) expect(condition, String(built)).toBeLessThanOrEqual(2);
    }
  });
});
