import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { call, dataSandbox, VALMONTE } from './http.js';

/** The slugs of the sample a user is told to try: slugs the real service issued. */
const SAMPLE_SLUGS = readFileSync(new URL('../../samples/slugs-with-values.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split(',')[0]!);

describe('address resolution', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox();
  });
  afterAll(() => sandbox.close());

  const chunkFor = async (query: Record<string, string>) => (await call(sandbox, '/v2/property/value', { query })).json[0];

  it("resolves slugs in the service's own form, such as those in samples/slugs-with-values.csv", async () => {
    expect(SAMPLE_SLUGS).toEqual(['43-Valmonte-Plz-Palos-Verdes-Estates-CA-90274', '244-S-Altadena-Dr-Pasadena-CA-91107']);
    const [valmonte, altadena] = await Promise.all(SAMPLE_SLUGS.map((slug) => chunkFor({ slug })));
    expect(valmonte.address_info).toMatchObject({
      address: '43 Valmonte Plz',
      city: 'Palos Verdes Estates',
      state: 'CA',
      zipcode: '90274',
    });
    expect(altadena.address_info).toMatchObject({ address: '244 S Altadena Dr', city: 'Pasadena', state: 'CA', zipcode: '91107' });
    expect(valmonte.address_info.status.match).toBe(true);
    expect(valmonte['property/value']).toEqual((await chunkFor(VALMONTE))['property/value']);
    expect(altadena['property/value']).toEqual((await chunkFor({ address: '244 S Altadena Drive', zipcode: '91107' }))['property/value']);
  });

  it('treats a spelled-out street suffix as its abbreviation, and reports the change', async () => {
    const spelled = await chunkFor(VALMONTE);
    const abbreviated = await chunkFor({ address: '43 Valmonte Plz', zipcode: '90274' });
    expect(spelled.address_info.address).toBe('43 Valmonte Plz');
    expect(spelled.address_info.status.changes).toContain('address normalised (case, punctuation, spacing, street suffix)');
    expect(spelled['property/value']).toEqual(abbreviated['property/value']);
    expect((await chunkFor({ address: '100 Court', zipcode: '90274' })).address_info.address).toBe('100 Court');
  });

  it('places an address in a known city in its real county and metro area, near the city', async () => {
    const { address_info: info } = await chunkFor(VALMONTE);
    expect(info).toMatchObject({ county_fips: '06037', msa: '31080', metrodiv: '31084' });
    expect(info.block_id.slice(0, 5)).toBe('06037');
    expect(Math.abs(info.lat - 33.787)).toBeLessThan(0.1);
    expect(Math.abs(info.lng - -118.392)).toBeLessThan(0.1);
    const census = (await call(sandbox, '/v2/property/census', { query: VALMONTE })).json[0]['property/census'].result;
    expect(census).toMatchObject({ fips: '06037', msa: '31080' });
  });

  it("issues slugs and full addresses in the service's form, and still resolves the sandbox's earlier slugs", async () => {
    const { address_info: info } = await chunkFor({ ...VALMONTE, city: 'Palos Verdes Estates' });
    expect(info).toMatchObject({
      slug: '43-Valmonte-Plz-Palos-Verdes-Estates-CA-90274',
      address_full: '43 Valmonte Plz Palos Verdes Estates CA 90274',
    });
    const value = (await chunkFor(VALMONTE))['property/value'];
    expect((await chunkFor({ slug: info.slug }))['property/value']).toEqual(value);
    expect((await chunkFor({ slug: '43-valmonte-plz_palos-verdes-estates_ca_90274' }))['property/value']).toEqual(value);
    expect((await chunkFor({ slug: 'not-a-slug' })).address_info.status).toMatchObject({ match: false, errors: ['slug not recognised'] });
  });

  it('keeps accented letters in the address, spells the slug in ASCII, and knows the house either way', async () => {
    const chenier = await chunkFor({ address: '3 Rue Chénier', zipcode: '70116' });
    expect(chenier.address_info).toMatchObject({
      address: '3 Rue Chénier',
      address_full: '3 Rue Chénier New Orleans LA 70116',
      slug: '3-Rue-Chenier-New-Orleans-LA-70116',
    });
    const cafe = await chunkFor({ address: '9 CAFÉ LANE', city: 'Cañon City', state: 'CO' });
    expect(cafe.address_info).toMatchObject({
      address: '9 Café Ln',
      city: 'Cañon City',
      zipcode: '81212',
      slug: '9-Cafe-Ln-Canon-City-CO-81212',
    });
    // Typed as a letter and a combining accent, without the accent, or asked by the slug: one house.
    const value = chenier['property/value'];
    const sameHouse: Record<string, string>[] = [
      { address: '3 Rue Che\u0301nier', zipcode: '70116' },
      { address: '3 Rue Chenier', zipcode: '70116' },
      { slug: chenier.address_info.slug },
    ];
    for (const query of sameHouse) {
      const again = await chunkFor(query);
      expect(again['property/value'], JSON.stringify(query)).toEqual(value);
      expect(again.address_info.block_id).toBe(chenier.address_info.block_id);
    }
    expect((await chunkFor({ address: '1 Straße Ærø Łódź', zipcode: '70116' })).address_info.slug).toBe(
      '1-Strasse-Aero-Lodz-New-Orleans-LA-70116',
    );
  });

  it('takes a building number after the street name (Spanish style) as the US writes it, first', async () => {
    const pena = await chunkFor({ address: 'Calle Peña 12', zipcode: '00901' });
    expect(pena.address_info).toMatchObject({ address: '12 Calle Peña', city: 'San Juan', slug: '12-Calle-Pena-San-Juan-PR-00901' });
    expect(pena.address_info.status.changes).toContain('building number moved before the street name');
    const leading = await chunkFor({ address: '12 Calle Peña', zipcode: '00901' });
    expect(leading['property/value']).toEqual(pena['property/value']);
    expect(leading.address_info.status.changes).not.toContain('building number moved before the street name');
    expect((await chunkFor({ address: 'Calle Peña 12B, San Juan, PR 00901' })).address_info.address).toBe('12b Calle Peña');
    // A road named by its number has no building number, wherever the number stands.
    for (const address of ['State Route 37', 'County Road 12', 'Calle Peña'])
      expect((await chunkFor({ address, zipcode: '00901' })).address_info.status.errors, address).toEqual([
        'address has no building number',
      ]);
  });

  it('takes a unit written in the address line as the unit: the same home as the unit identifier names', async () => {
    const asUnit = await chunkFor({ address: '350 W 42nd St', unit: '12B', zipcode: '10036' });
    const building = await chunkFor({ address: '350 W 42nd St', zipcode: '10036' });
    expect(asUnit.address_info).toMatchObject({ address: '350 W 42nd St', unit: 'UNIT 12B' });
    expect(building['property/value']).not.toEqual(asUnit['property/value']);
    const written = {
      '350 W 42nd St Apt 12B': 'APT 12B',
      '350 W 42nd St Apt. 12B': 'APT 12B',
      '350 W 42nd St Apartment 12B': 'APT 12B',
      '350 W 42nd St Unit 12B': 'UNIT 12B',
      '350 W 42nd St # 12B': 'UNIT 12B',
      '350 W 42nd St #12B': 'UNIT 12B',
      '350 W 42nd St Ste 12B': 'STE 12B',
      '350 W 42nd St, Apt 12B, New York, NY': 'APT 12B',
    };
    for (const [address, unit] of Object.entries(written)) {
      const chunk = await chunkFor({ address, zipcode: '10036' });
      expect(chunk.address_info, address).toMatchObject({
        address: '350 W 42nd St',
        unit,
        city: 'New York',
        block_id: asUnit.address_info.block_id,
        lat: asUnit.address_info.lat,
      });
      expect(chunk.address_info.status.changes).toContain('unit taken from the address line');
      expect(chunk['property/value'], address).toEqual(asUnit['property/value']);
    }
    // A street whose last word begins like a designator has no unit in it.
    expect((await chunkFor({ address: '12 Main Street', zipcode: '10036' })).address_info).toMatchObject({
      address: '12 Main St',
      unit: null,
    });
  });

  it('reads a unit back from the slug it issued', async () => {
    const { address_info: info } = await chunkFor({ address: '100 W Pennsylvania Ave', unit: 'Apartment 4B', zipcode: '21204' });
    expect(info).toMatchObject({ unit: 'APT 4B', slug: '100-W-Pennsylvania-Ave-APT-4B-Towson-MD-21204' });
    expect((await chunkFor({ slug: info.slug })).address_info).toEqual({ ...info, status: expect.anything() });
  });
});
