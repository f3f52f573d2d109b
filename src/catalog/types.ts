import type { Schema } from './schema.js';

export const LEVELS = ['property', 'block', 'blockgroup', 'zip', 'metrodiv', 'msa', 'state', 'reports'] as const;
export type Level = (typeof LEVELS)[number];
export type Version = 'v2' | 'v3';

/** Chunk members describing the item: the spec shows address_info and block_info; zipcode_info and msa_info are assumed alike. */
export type InfoMember = 'address_info' | 'block_info' | 'zipcode_info' | 'msa_info';

/** An item identifier (address, block_id, ...) as the spec's identifier table defines it. */
export interface Identifier {
  name: string;
  description: string;
  /** Exactly this many decimal digits (block_id 15, zipcode 5, ...). */
  digits?: number;
}

export interface LevelSpec {
  level: Level;
  /** Identifiers an item at this level may carry (meta excluded: it is allowed everywhere). */
  identifiers: readonly Identifier[];
  /**
   * `address-or-slug`: property items need address or slug, the rest optional.
   * `all`: every identifier listed is required.
   */
  rule: 'address-or-slug' | 'all';
  /** The chunk member that describes the item itself. */
  infoMember?: InfoMember;
}

/** An endpoint-specific request parameter (client_value, add_beds, property_type, ...). */
export interface Param {
  name: string;
  type: 'int' | 'number' | 'string' | 'date';
  description: string;
  required?: boolean;
  enum?: readonly string[];
  default?: string;
  /** Dates that must be the first day of a month. */
  firstOfMonth?: boolean;
  /** Numbers that must be a multiple of this step (add_baths: 0.5). */
  step?: number;
  /** The only values accepted (add_pools: 1). */
  allowed?: readonly number[];
  min?: number;
}

/** Why, beyond an unresolved address, the service may answer a section with api_code 204. */
export type NoContentCause = 'no-listing' | 'limited-coverage' | 'adjustment-impossible';

/** `Name`: the catalog's endpoints carry their literal name (EndpointName); an ad hoc path is any string. */
export interface Endpoint<Name extends string = string> {
  /** `<level>/<target>`, also the chunk member key. */
  name: Name;
  version: Version;
  level: Level;
  target: string;
  description: string;
  params: readonly Param[];
  /** At least one of these parameters must be present (value_details_adjusted). */
  requireOneOf?: readonly string[];
  /** Shape of the section's `result`; absent for component_mget, which has no section of its own. */
  result?: Schema;
  /** List price per component in USD: sandbox billing and `estimate` both use it. */
  price: number;
  noContent?: NoContentCause;
  /**
   * The endpoint whose result this one gives: for the property-level forms `property/block_<target>`,
   * `property/zip_<target>` and `property/msa_<target>`, the area endpoint, answered for the
   * property's block, ZIP or metro area; for `property/ltv`, property/ltv_details.
   */
  mirrors?: string;
  /** component_mget: fetches the endpoints named in its `components` parameter. */
  mget?: boolean;
  /** Not in the spec: called by clients of the real service, shaped like its nearest specified relative. */
  beyondSpec?: boolean;
}
