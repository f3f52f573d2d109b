import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { HOMES_IN_CITIES_OF_MANY_ZIPS } from './fixtures/homes-in-cities-of-many-zips.js';
import { LANDMARKS } from './fixtures/landmarks.js';
import { REAL_ADDRESSES } from './fixtures/real-addresses.js';
import { call, dataSandbox, VALMONTE } from './http.js';

describe('real geography', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox();
  });
  afterAll(() => sandbox.close());

  const infoFor = async (items: Array<Record<string, string>>) =>
    (await call(sandbox, '/v2/property/value', { body: items })).json.map((chunk: any) => chunk.address_info);

  it('places twenty real addresses in their real city and county, the same house by ZIP or by city and state', async () => {
    const byZip = await infoFor(REAL_ADDRESSES.map(({ address, zipcode }) => ({ address, zipcode })));
    const byCity = await infoFor(REAL_ADDRESSES.map(({ address, city, state }) => ({ address, city, state })));
    REAL_ADDRESSES.forEach((expected, index) => {
      const [zip, city] = [byZip[index], byCity[index]];
      if (!zip.status.match) return; // the stable few percent the address database does not know
      expect(zip, expected.address).toMatchObject({
        city: expected.city,
        state: expected.state,
        zipcode: expected.zipcode,
        county_fips: expected.countyFips,
      });
      expect(zip.block_id.slice(0, 5)).toBe(expected.countyFips);
      expect(zip.blockgroup_id).toBe(zip.block_id.slice(0, 12));
      expect(city).toMatchObject({ slug: zip.slug, block_id: zip.block_id, lat: zip.lat, lng: zip.lng, zipcode: expected.zipcode });
    });
    expect(byZip.filter((info: any) => info.status.match).length).toBeGreaterThanOrEqual(17);
  });

  it('resolves twenty well-known addresses in cities of many ZIPs to one ZIP, block and slug, by ZIP or by city and state', async () => {
    expect(new Set(LANDMARKS.map(({ city }) => city)).size).toBeLessThan(LANDMARKS.length);
    const byZip = await infoFor(LANDMARKS.map(({ address, zipcode }) => ({ address, zipcode })));
    const askedOtherwise = [
      LANDMARKS.map(({ address, city, state }) => ({ address, city, state })),
      LANDMARKS.map(({ address, city, state }) => ({ address: `${address}, ${city}, ${state}` })),
      LANDMARKS.map(({ address, city, state }) => ({ address: address.toUpperCase(), city: city.toUpperCase(), state })),
    ];
    const unmatched = byZip.filter((info: any) => !info.status.match).length;
    expect(unmatched).toBeLessThanOrEqual(2);
    for (const items of askedOtherwise) {
      const infos = await infoFor(items);
      LANDMARKS.forEach((landmark, index) => {
        const [zip, other] = [byZip[index], infos[index]];
        expect(other.status.match, landmark.name).toBe(zip.status.match);
        if (!zip.status.match) return;
        expect(zip.zipcode).toBe(landmark.zipcode);
        expect(other, `${landmark.name}: ${JSON.stringify(items[index])}`).toMatchObject({
          zipcode: zip.zipcode,
          block_id: zip.block_id,
          slug: zip.slug,
          lat: zip.lat,
          lng: zip.lng,
        });
      });
    }
  });

  it('lands real homes of cities of many ZIPs in their real ZIP and block, by ZIP or by city and state', async () => {
    const homes = HOMES_IN_CITIES_OF_MANY_ZIPS;
    const byZip = await infoFor(homes.map(({ address, zipcode }) => ({ address, zipcode })));
    const byCity = await infoFor(homes.map(({ address, city, state }) => ({ address, city, state })));
    homes.forEach((home, index) => {
      const [zip, city] = [byZip[index], byCity[index]];
      expect(city.status.match, home.address).toBe(zip.status.match);
      if (!zip.status.match) return;
      expect(city, `${home.address}, ${home.city}`).toMatchObject({
        zipcode: home.zipcode,
        block_id: zip.block_id,
        lat: zip.lat,
        lng: zip.lng,
      });
    });
    expect(byZip.filter((info: any) => info.status.match).length).toBeGreaterThanOrEqual(homes.length - 3);
  });

  it('gives a house the address book does not know the ZIP of its nearest known neighbour on the street, and one ZIP every time', async () => {
    const [near, again, unknown, unknownAgain] = await infoFor([
      { address: '200 S Wacker Dr', city: 'Chicago', state: 'IL' },
      { address: '200 S Wacker Drive', city: 'Chicago', state: 'Illinois' },
      { address: '4 Nowhere Known Ln', city: 'Chicago', state: 'IL' },
      { address: '4 Nowhere Known Lane', city: 'chicago', state: 'IL' },
    ]);
    expect(near).toMatchObject({ zipcode: '60606', city: 'Chicago' });
    expect(again).toMatchObject({ zipcode: near.zipcode, block_id: near.block_id, slug: near.slug });
    expect(unknown.zipcode).toMatch(/^60[67]\d\d$/);
    expect(unknownAgain).toMatchObject({ zipcode: unknown.zipcode, block_id: unknown.block_id, slug: unknown.slug });
  });

  it('spells a city given under another name as its postal city: St. Louis is Saint Louis, by ZIP or by city', async () => {
    const [[byZip], [byCity]] = await Promise.all([
      infoFor([{ address: '700 Clark Ave', zipcode: '63102' }]),
      infoFor([{ address: '700 Clark Ave', city: 'St. Louis', state: 'MO' }]),
    ]);
    expect(byZip).toMatchObject({ city: 'Saint Louis', slug: '700-Clark-Ave-Saint-Louis-MO-63102' });
    expect(byCity).toMatchObject({ city: byZip.city, zipcode: byZip.zipcode, slug: byZip.slug, block_id: byZip.block_id });
    expect(byCity.status.changes).toContain('city spelt as its postal name');
  });

  it('resolves Pasadena and Las Vegas ZIPs to their real city, county and position', async () => {
    const [pasadena, lasVegas] = await infoFor([
      { address: '244 S Altadena Dr', zipcode: '91107' },
      { address: '7 Main St', zipcode: '89128' },
    ]);
    expect(pasadena).toMatchObject({ city: 'Pasadena', county_fips: '06037', msa: '31080' });
    expect(Math.abs(pasadena.lat - 34.151)).toBeLessThan(0.02);
    expect(Math.abs(pasadena.lng - -118.089)).toBeLessThan(0.02);
    expect(lasVegas).toMatchObject({ city: 'Las Vegas', state: 'NV', county_fips: '32003' });
    const census = async (query: Record<string, string>) =>
      (await call(sandbox, '/v2/property/census', { query })).json[0]['property/census'].result;
    expect((await census({ address: '7 Main St', zipcode: '89128' })).county_name).toBe('Clark County');
    expect((await census({ address: '7 Main St', zipcode: '21201' })).county_name).toBe('Baltimore city');
  });

  it('gives a city the ZIP table names by its postal city alone the ZIP of its namesake: Palos Verdes Estates is in 90274', async () => {
    const [[byZip], [byCity], [byLine]] = await Promise.all([
      infoFor([{ ...VALMONTE, city: 'Palos Verdes Estates' }]),
      infoFor([{ address: '43 Valmonte Plaza', city: 'Palos Verdes Estates', state: 'CA' }]),
      infoFor([{ address: '43 Valmonte Plaza, Palos Verdes Estates, CA' }]),
    ]);
    expect(byZip.slug).toBe('43-Valmonte-Plz-Palos-Verdes-Estates-CA-90274');
    for (const info of [byCity, byLine])
      expect(info).toMatchObject({ slug: byZip.slug, block_id: byZip.block_id, address_full: byZip.address_full });
  });

  it('still answers, plausibly, for a ZIP the table does not know', async () => {
    const [info] = await infoFor([{ address: '12 Calle Sol', zipcode: '00999' }]);
    expect(info).toMatchObject({ state: 'PR', zipcode: '00999' });
    expect(info.county_fips).toMatch(/^72\d{3}$/);
  });

  it('answers a no-match as the service does: every address field null, the request kept', async () => {
    const requested = { address: '1 NOMATCH Road', zipcode: '90274' };
    const [info] = await infoFor([requested]);
    const nulls = [
      'address_full',
      'slug',
      'address',
      'unit',
      'zipcode',
      'zipcode_plus4',
      'block_id',
      'blockgroup_id',
      'county_fips',
      'metrodiv',
      'msa',
      'city',
      'state',
      'lat',
      'lng',
    ];
    expect(info).toEqual({
      ...Object.fromEntries(nulls.map((name) => [name, null])),
      geo_precision: 'unknown',
      status: {
        match: false,
        requested_item: requested,
        details: ['address not resolved'],
        changes: [],
        errors: ['address not found in the address database'],
      },
    });
  });
});
