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
    ...Object.fromEntries(
      components.map((name) => [name.replace('property/', ''), chunk[name].api_code === 0 ? chunk[name].result : null]),
    ),
  })) as Array<Record<string, any>>;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const isSale = (deed: { event_type: string }) => deed.event_type === 'arms_length_sale';
const year = (date: string) => Number(date.slice(0, 4));

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
    expect(all[0]!.census).toMatchObject({
      msa: '31080',
      msa_name: 'Los Angeles-Long Beach-Anaheim, CA',
      county_name: 'Los Angeles County',
    });
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
    const titleWord: Record<string, string> = {
      'Severe Storm': 'STORM',
      Flood: 'FLOOD',
      'Winter Storm': 'WINTER',
      Tornado: 'TORNADO',
      Fire: 'FIRE',
      Hurricane: 'HURRICANE',
    };
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

  it("liens: the current owner's are among all liens and date from the last sale; ltv_details lists the running ones; none lend more than the house is worth", async () => {
    const all = (
      await chunks(sandbox, ['property/mortgage_lien', 'property/mortgage_lien_all', 'property/ltv_details', 'property/sales_history'])
    ).filter((chunk) => chunk.mortgage_lien);
    expect(all.filter((chunk) => chunk.ltv_details.current_liens.length > 1).length).toBeGreaterThan(3);
    for (const { mortgage_lien: current, mortgage_lien_all: liens, ltv_details: ltv, sales_history: deeds } of all) {
      const byDoc = new Map(liens.map((lien: any) => [lien.record_doc, lien]));
      for (const lien of current) expect(byDoc.get(lien.record_doc)).toEqual(lien);
      const lastSale = deeds.find(isSale);
      if (lastSale) {
        for (const lien of current) expect(lien.record_date >= lastSale.record_date).toBe(true);
        for (const lien of liens)
          if (lien.record_date >= lastSale.record_date) expect(current.map((own: any) => own.record_doc)).toContain(lien.record_doc);
      }
      for (const running of ltv.current_liens) {
        const recorded = current.find(
          (lien: any) =>
            lien.record_date === running.record_date && lien.amount === running.lien_amount && lien.lien_type === running.lien_type,
        );
        expect(recorded, JSON.stringify(running)).toMatchObject({
          due_date: running.due_date,
          grantor_1: running.grantor_1,
          lender_type: running.lender_type,
          interest_rate: running.interest_rate,
        });
        expect(running.due_date > ltv.as_of_month).toBe(true);
      }
      expect(sum(ltv.current_liens.map((lien: any) => lien.lien_amount))).toBeLessThanOrEqual(ltv.property_value_mean);
      for (const sale of deeds.filter(isSale)) {
        const withSale = liens.filter((lien: any) => lien.record_date === sale.record_date && lien.event_type !== 'lien_stand_alone');
        expect(sum(withSale.map((lien: any) => lien.amount))).toBeLessThanOrEqual(sale.amount);
        const [first, second] = ['lien_concurrent_1', 'lien_concurrent_2'].map((type) =>
          withSale.find((lien: any) => lien.event_type === type),
        );
        if (second) expect(second.amount).toBeLessThan(first.amount);
      }
    }
  });

  it('liens: one public rate a month, the estimated rate is the one for the term, ARM notices only on ARMs', async () => {
    const all = (await chunks(sandbox, ['property/mortgage_lien_all', 'property/ltv_details'])).filter((chunk) => chunk.mortgage_lien_all);
    const liens = all.flatMap((chunk) => chunk.mortgage_lien_all);
    oneValueEach(liens.map((lien: any) => [lien.record_date.slice(0, 7), [lien.thirty_yr, lien.fifteen_yr]]));
    for (const lien of liens) {
      expect(lien.interest_rate).toBe(lien.mortgage_years <= 15 ? lien.fifteen_yr : lien.thirty_yr);
      if (year(lien.record_date) === 2021) expect(lien.thirty_yr).toBeLessThan(4);
      if (year(lien.record_date) === 2023) expect(lien.thirty_yr).toBeGreaterThan(5.5);
    }
    for (const lien of all.flatMap((chunk) => chunk.ltv_details.current_liens)) {
      if (!lien.is_arm) for (const id of lien.notice_ids) expect([0, 1, 5, 28, 29, 30]).toContain(id);
    }
  });

  it('record_doc begins with the year of record_date on liens, deeds and notices of default', async () => {
    const all = (await chunks(sandbox, ['property/mortgage_lien_all', 'property/sales_history', 'property/nod'])).filter(
      (chunk) => chunk.nod,
    );
    const records = all.flatMap((chunk) => [...chunk.mortgage_lien_all, ...chunk.sales_history, ...chunk.nod.default_history]);
    expect(records.length).toBeGreaterThan(100);
    for (const record of records) expect(record.record_doc.slice(0, 4), JSON.stringify(record)).toBe(record.record_date.slice(0, 4));
  });

  it('the last sale: the same in sales_history, details_enhanced, ltv_origination and a sold listing; deeds chain owner to owner, after the house was built', async () => {
    const components = [
      'property/sales_history',
      'property/details_enhanced',
      'property/ltv_origination',
      'property/mortgage_lien',
      'property/listing_status',
      'property/details',
    ];
    const all = (await chunks(sandbox, components)).filter((chunk) => chunk.sales_history);
    let sold = 0;
    for (const {
      sales_history: deeds,
      details_enhanced: enhanced,
      ltv_origination: origination,
      mortgage_lien: liens,
      listing_status: listing,
      details,
    } of all) {
      const sale = enhanced.public_record.sale;
      expect(enhanced.listing_record.sale).toEqual(sale);
      deeds.forEach((deed: any, index: number) => {
        expect(year(deed.record_date)).toBeGreaterThanOrEqual(details.property.year_built);
        const earlier = deeds[index + 1];
        if (earlier) expect([deed.grantor_1, deed.grantor_1_forenames]).toEqual([earlier.grantee_1, earlier.grantee_1_forenames]);
      });
      if (deeds.length > 0)
        expect(enhanced.public_record.assessment.owner_name).toBe(`${deeds[0].grantee_1} ${deeds[0].grantee_1_forenames}`);
      const lastSale = deeds.find(isSale);
      if (!lastSale) continue;
      expect([sale.sale_date, sale.sale_price]).toEqual([lastSale.record_date, lastSale.amount]);
      const withSale = liens.filter((lien: any) => lien.record_date === lastSale.record_date && lien.event_type !== 'lien_stand_alone');
      expect(origination).toMatchObject({ source: 'deed', value: lastSale.amount, lien: sum(withSale.map((lien: any) => lien.amount)) });
      expect(origination.ltv).toBeLessThanOrEqual(1);
      if (listing === null) continue;
      if (['Sold', 'Closed'].includes(listing.listing_status)) {
        sold += 1;
        expect(lastSale.record_date).toBe(listing.listing_status_date);
        expect(Math.abs(lastSale.amount / listing.listing_price - 1)).toBeLessThan(0.05);
      } else expect(lastSale.record_date < listing.listing_date).toBe(true);
    }
    expect(sold).toBeGreaterThan(0);
  });

  it('defaults: ltv_details reports the notices nod lists, all since the last sale', async () => {
    const all = (await chunks(sandbox, ['property/nod', 'property/ltv_details', 'property/sales_history'])).filter((chunk) => chunk.nod);
    for (const { nod, ltv_details: ltv, sales_history: deeds } of all) {
      expect(ltv.last_default_date).toBe(nod.last_default_date);
      expect(ltv.in_default).toBe(nod.default_history.length > 0);
      const lastSale = deeds.find(isSale);
      for (const notice of nod.default_history) if (lastSale) expect(notice.record_date > lastSale.record_date).toBe(true);
    }
    expect(all.filter(({ nod }) => nod.default_history.length > 0).length).toBeLessThan(all.length / 10);
  });

  it('details, details_enhanced and the within-block answers describe the same home and the same assessment', async () => {
    const components = [
      'property/details',
      'property/details_enhanced',
      'property/value_within_block',
      'property/rental_value_within_block',
    ];
    const all = (await chunks(sandbox, components)).filter((chunk) => chunk.details);
    const blockCodes: Record<string, string> = {
      'Single Family Residential': 'SFD',
      Townhouse: 'TH',
      Condominium: 'CND',
      'Multi-Family': 'INC',
      'Manufactured/Mobile Home': 'MFH',
    };
    for (const { details, details_enhanced: enhanced, value_within_block: within, rental_value_within_block: rentalWithin } of all) {
      const { property, assessment } = details;
      for (const record of [enhanced.public_record, enhanced.listing_record]) expect(record.property_type).toBe(property.property_type);
      expect([within.property_type, rentalWithin.property_type]).toEqual([
        blockCodes[property.property_type],
        blockCodes[property.property_type],
      ]);
      expect(enhanced.public_record.has_basement).toBe(property.basement !== 'No Basement');
      expect(enhanced.public_record.parking_garage_count).toBe(property.garage_parking_of_cars);
      if (['None', 'Open', 'Carport'].includes(property.garage_type_parking)) expect(property.garage_parking_of_cars).toBe(0);
      expect(property.total_number_of_rooms).toBeGreaterThanOrEqual(property.number_of_bedrooms + 2);
      expect(property.number_of_units > 1).toBe(property.property_type === 'Multi-Family');
      const rooms = enhanced.listing_record.room_types;
      if (rooms) expect(new Set(rooms).size).toBe(rooms.length);
      const { owner_name: _owner, ...recorded } = enhanced.public_record.assessment;
      expect(recorded).toEqual({ ...assessment, tax_amount: Math.round(assessment.tax_amount) });
      expect(assessment.tax_year).toBeGreaterThanOrEqual(assessment.assessment_year);
      expect(assessment.tax_amount / assessment.total_assessed_value).toBeGreaterThan(0.005);
      expect(assessment.tax_amount / assessment.total_assessed_value).toBeLessThan(0.025);
    }
  });

  it('flood: one map panel per tract, numbered after its county; schools listed once; a rented home is not owner-occupied', async () => {
    const components = ['property/flood', 'property/school', 'property/owner_occupied', 'property/rental_listing_status'];
    const all = (await chunks(sandbox, components)).filter((chunk) => chunk.flood);
    const panels = oneValueEach(all.map(({ info, flood }) => [info.block_id.slice(0, 11), [flood.panel_number, flood.effective_date]]));
    expect(panels.size).toBeLessThan(all.length);
    for (const { info, flood, school, owner_occupied: occupied, rental_listing_status: rental } of all) {
      expect(flood.panel_number).toMatch(new RegExp(`^${info.county_fips}C\\d{4}[A-Z]$`));
      for (const stage of Object.values<{ name: string }[]>(school.school))
        expect(new Set(stage.map((one) => one.name)).size).toBe(stage.length);
      if (rental && ['Coming Soon', 'Active', 'Pending', 'Contingent', 'Leased'].includes(rental.listing_status))
        expect(occupied.owner_occupied).toBe(false);
    }
    const occupiedShare = all.filter((chunk) => chunk.owner_occupied.owner_occupied).length / all.length;
    expect(occupiedShare).toBeGreaterThan(0.4);
  });

  it('superfund: the rings nest (on the block, within 1 mile, within 4 miles) and site ids begin with the state', async () => {
    const all = (await chunks(sandbox, ['property/block_superfund'])).filter((chunk) => chunk.block_superfund);
    let sites = 0;
    for (const { info, block_superfund: rings } of all) {
      const ids = (ring: string) => rings[ring].detail.map((site: any) => site.epa_site_id);
      for (const ring of ['within_miles_0', 'within_miles_1', 'within_miles_4']) expect(rings[ring].count).toBe(rings[ring].detail.length);
      expect(ids('within_miles_4')).toEqual(expect.arrayContaining(ids('within_miles_1')));
      expect(ids('within_miles_1')).toEqual(expect.arrayContaining(ids('within_miles_0')));
      for (const id of ids('within_miles_4')) expect(id.slice(0, 3)).toBe(`${info.state}D`);
      sites += rings.within_miles_4.count;
    }
    expect(sites).toBeGreaterThan(10);
  });
});
