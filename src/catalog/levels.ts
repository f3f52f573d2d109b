import type { Level, LevelSpec } from './types.js';

const meta = 'arbitrary string echoed back with the item';

/** Identifiers per level, from the spec's identifier table and POST body rules. */
export const LEVEL_SPECS: Readonly<Record<Level, LevelSpec>> = {
  property: {
    level: 'property',
    rule: 'address-or-slug',
    infoMember: 'address_info',
    identifiers: [
      { name: 'address', description: 'building number and street, optionally the unit' },
      { name: 'unit', description: 'unit designation, when not already in address' },
      { name: 'city', description: 'city' },
      { name: 'state', description: '2-letter abbreviation or full state name' },
      { name: 'zipcode', description: '5-digit ZIP code', digits: 5 },
      { name: 'slug', description: 'address slug returned by the service in address_info' },
    ],
  },
  block: {
    level: 'block',
    rule: 'all',
    infoMember: 'block_info',
    identifiers: [{ name: 'block_id', description: '15-digit census block', digits: 15 }],
  },
  blockgroup: {
    level: 'blockgroup',
    rule: 'all',
    identifiers: [{ name: 'blockgroup_id', description: '12-digit census block group', digits: 12 }],
  },
  zip: {
    level: 'zip',
    rule: 'all',
    infoMember: 'zipcode_info',
    identifiers: [{ name: 'zipcode', description: '5-digit ZIP code', digits: 5 }],
  },
  metrodiv: {
    level: 'metrodiv',
    rule: 'all',
    identifiers: [{ name: 'metrodiv', description: '5-digit metropolitan division', digits: 5 }],
  },
  msa: {
    level: 'msa',
    rule: 'all',
    infoMember: 'msa_info',
    identifiers: [{ name: 'msa', description: '5-digit metropolitan statistical area', digits: 5 }],
  },
  state: {
    level: 'state',
    rule: 'all',
    identifiers: [{ name: 'state', description: '2-letter abbreviation (POST also takes the full name)' }],
  },
  // Identifiers for `reports` are "not shown" in the spec: such calls go through `propdata call`.
  reports: { level: 'reports', rule: 'all', identifiers: [] },
};

export const META = { name: 'meta', description: meta } as const;

/** Every identifier name any level knows, plus meta: the keys a POST item may carry besides parameters. */
export const ALL_IDENTIFIERS: readonly string[] = [
  ...new Set(Object.values(LEVEL_SPECS).flatMap((spec) => spec.identifiers.map((id) => id.name))),
  META.name,
];
