import type { Resolution } from './place.js';

/**
 * The chunk's address_info. For an address that did not resolve, the service has nothing canonical
 * to report: the fields echo what was requested where they can and are null otherwise, and
 * status.errors says why.
 */
export function addressInfo(resolution: Resolution, requested: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (!resolution.matched) {
    const text = (name: string) => (typeof requested[name] === 'string' || typeof requested[name] === 'number' ? String(requested[name]) : null);
    const full = ['address', 'unit', 'city', 'state', 'zipcode'].map(text).filter((part) => part !== null).join(', ');
    return {
      address_full: full || null,
      slug: null,
      address: text('address'),
      unit: text('unit'),
      zipcode: text('zipcode'),
      zipcode_plus4: null,
      block_id: null,
      blockgroup_id: null,
      county_fips: null,
      metrodiv: null,
      msa: null,
      city: text('city'),
      state: text('state'),
      geo_precision: 'unknown',
      lat: null,
      lng: null,
      status: { match: false, requested_item: requested, details: ['address not resolved'], changes: resolution.changes, errors: resolution.errors },
    };
  }
  const { place } = resolution;
  const street = place.unit ? `${place.street} ${place.unit}` : place.street;
  return {
    address_full: `${street}, ${place.city}, ${place.state} ${place.zip}`,
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
