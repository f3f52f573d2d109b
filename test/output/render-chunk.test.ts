import { describe, expect, it } from 'vitest';
import { renderChunks } from '../../src/output/render-chunk.js';

const render = (chunk: Record<string, unknown>) => renderChunks([chunk], { color: false });
const address_info = {
  address_full: '1 Main St, Towson, MD 21204',
  slug: '1-Main-St-Towson-MD-21204',
  block_id: '240054901001000',
  county_fips: '24005',
  geo_precision: 'rooftop',
  lat: 39.4,
  lon: -76.6,
  status: { match: true },
};

describe('the one-off terminal view', () => {
  it('shows each sale or lien on its own line: date, amount, kind, parties', () => {
    const sale = (date: string, amount: number, from: string, to: string) => ({
      record_date: date,
      amount,
      event_type: 'deed',
      grantor_1: from,
      grantor_1_forenames: null,
      grantee_1: to,
      grantee_1_forenames: 'JANE',
      fips: '24005',
    });
    const text = render({
      address_info,
      'property/sales_history': {
        api_code: 0,
        result: [sale('2019-05-01', 450000, 'SMITH', 'DOE'), sale('2012-01-09', 1144000, 'ROE', 'SMITH')],
      },
    });
    expect(text).toContain('2 records');
    expect(text).toContain('2019-05-01  $450,000  deed  SMITH → DOE JANE');
    expect(text).toContain('2012-01-09  $1,144,000  deed  ROE → SMITH JANE');
  });

  it('names superfund sites, and shows where geocode put the address', () => {
    const sites = (names: string[]) => ({ count: names.length, detail: names.map((site_name) => ({ site_name, epa_site_id: 'X' })) });
    const superfund = render({
      block_info: { block_id: '240054901001000' },
      'block/superfund': {
        api_code: 0,
        result: { within_miles_0: sites([]), within_miles_1: sites(['Kane & Lombard']), within_miles_4: sites([]) },
      },
    });
    expect(superfund).toMatch(/within_miles_1\.detail\s+Kane & Lombard/);
    const geocode = render({ address_info, 'property/geocode': { api_code: 0, result: true } });
    expect(geocode).not.toMatch(/result\s+true/);
    expect(geocode).toMatch(/lat\s+39\.4/);
    expect(geocode).toMatch(/lng\s+-76\.6/);
    expect(geocode).toMatch(/county_fips\s+24005/);
    expect(geocode).toMatch(/geo_precision\s+rooftop/);
    // The header names what the bare value is.
    expect(geocode).toMatch(/^ {2}slug 1-Main-St-Towson-MD-21204 · block 240054901001000 · precision rooftop$/m);
  });

  it('shows details whole, numbers grouped alike, years and codes as given', () => {
    const property = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_${String(i).padStart(2, '0')}`, i]));
    const text = render({
      address_info,
      'property/details': {
        api_code: 0,
        result: {
          property: { ...property, building_area_sq_ft: 7610, year_built: 1978 },
          assessment: { assessment_year: 2023, total_assessed_value: 1144000, tax_amount: 10234.5 },
        },
      },
    });
    expect(text).not.toContain('more (--json');
    expect(text).toMatch(/property\.building_area_sq_ft\s+7,610/);
    expect(text).toMatch(/property\.year_built\s+1978/);
    expect(text).toMatch(/assessment\.assessment_year\s+2023/);
    expect(text).toMatch(/assessment\.total_assessed_value\s+1,144,000/);
    expect(text).toMatch(/assessment\.tax_amount\s+10,234\.5/);
  });
});
