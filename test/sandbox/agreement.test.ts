import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { addresses, call, dataSandbox, VALMONTE } from './http.js';

/** Fields that must not contradict each other: within one result, and between endpoints for one address. */

const ITEMS = [VALMONTE, ...addresses(79, 'Agree')];

/** One chunk per item with the components' results (null for a 204) and address_info. */
async function chunks(sandbox: RunningSandbox, components: readonly string[]) {
  const reply = await call(sandbox, '/v2/property/component_mget', { query: { components: components.join(',') }, body: ITEMS });
  expect(reply.status, reply.text).toBe(200);
  return reply.json.map((chunk: Record<string, any>) => ({
    info: chunk.address_info,
    ...Object.fromEntries(components.map((name) => [name.replace('property/', ''), chunk[name].api_code === 0 ? chunk[name].result : null])),
  })) as Array<Record<string, any>>;
}

/** Every pair (key, value) seen: a key with two values is a contradiction between answers. */
function oneValueEach(pairs: ReadonlyArray<readonly [string, unknown]>) {
  const seen = new Map<string, unknown>();
  for (const [key, value] of pairs) {
    if (seen.has(key)) expect(value, key).toEqual(seen.get(key));
    seen.set(key, value);
  }
  return seen;
}

describe('generated data agrees with itself', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox();
  });
  afterAll(() => sandbox.close());

  it('census names the real metro area and county of a known city; one code has one name in every answer', async () => {
    const all = (await chunks(sandbox, ['property/census'])).filter((chunk) => chunk.census);
    expect(all[0]!.census).toMatchObject({ msa: '31080', msa_name: 'Los Angeles-Long Beach-Anaheim, CA', county_name: 'Los Angeles County' });
    const metros = oneValueEach(all.filter((chunk) => chunk.census.msa).map((chunk) => [chunk.census.msa, chunk.census.msa_name]));
    const counties = oneValueEach(all.map((chunk) => [chunk.census.fips, chunk.census.county_name]));
    expect(counties.size).toBeGreaterThan(5);
    expect(metros.size).toBeGreaterThan(5);
    for (const { census, info } of all) {
      if (census.msa === null) expect(census.msa_name).toBeNull();
      // Census metro names end in their states' codes ("Boston-Cambridge-Newton, MA-NH").
      else expect(census.msa_name.split(', ').at(-1).split('-')).toContain(info.state);
    }
  });

  it("fema_disaster_area: each declaration's title fits its type; one county, one set of open disasters", async () => {
    const all = (await chunks(sandbox, ['property/fema_disaster_area'])).filter((chunk) => chunk.fema_disaster_area);
    const titleWord: Record<string, string> = { 'Severe Storm': 'STORM', Flood: 'FLOOD', 'Winter Storm': 'WINTER', Tornado: 'TORNADO', Fire: 'FIRE', Hurricane: 'HURRICANE' };
    oneValueEach(all.map(({ info, fema_disaster_area: fema }) => [info.county_fips, fema.details]));
    let declarations = 0;
    for (const { info, fema_disaster_area: fema } of all) {
      expect(fema.in_disaster_area).toBe(fema.details.length > 0);
      for (const disaster of fema.details) {
        declarations += 1;
        expect(disaster.title, disaster.type).toContain(titleWord[disaster.type]);
        expect(disaster.fips).toBe(info.county_fips);
        expect(disaster.start_date <= disaster.declared_date && disaster.declared_date <= fema.data_current_to).toBe(true);
        if (info.state === 'CA') expect(disaster.type).not.toBe('Hurricane');
      }
    }
    expect(declarations).toBeGreaterThan(10);
  });
});
