import type { Resolution } from './place.js';

/**
 * The chunk's address_info. For an address that did not resolve, the service has nothing canonical
 * to report: every address field is null and geo_precision `unknown`, as its recorded answers show;
 * what was asked stays in status.requested_item, and status.errors says why.
 */
export function addressInfo(resolution: Resolution, requested: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (!resolution.matched) {
    return {
      address_full: null,
      slug: null,
      address: null,
      unit: null,
      zipcode: null,
      zipcode_plus4: null,
      block_id: null,
      blockgroup_id: null,
      county_fips: null,
      metrodiv: null,
      msa: null,
      city: null,
      state: null,
      geo_precision: 'unknown',
      lat: null,
      lng: null,
      status: {
        match: false,
        requested_item: requested,
        details: ['address not resolved'],
        changes: resolution.changes,
        errors: resolution.errors,
      },
    };
  }
  const { place } = resolution;
  return {
    address_full: place.fullAddress,
    slug: place.slug,
    address: place.street,
    unit: place.unit,
    zipcode: place.zip,
    zipcode_plus4: place.plus4,
    block_id: place.blockId,
    blockgroup_id: place.blockId.slice(0, 12),
    county_fips: place.countyFips,
    metrodiv: place.metrodiv,
    msa: place.msa,
    city: place.city,
    state: place.state,
    geo_precision: place.geoPrecision,
    lat: place.lat,
    lng: place.lng,
    status: {
      match: true,
      requested_item: requested,
      details: [`resolved to a canonical address (${place.geoPrecision} precision)`],
      changes: resolution.changes,
      errors: [],
    },
  };
}
