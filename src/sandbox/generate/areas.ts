import { countyOf } from './area-draws.js';
import { knownMetroCounty, stateOfFips, stateOfZip, typicalValue } from './geography.js';
import type { BlockPlace } from './place.js';

/**
 * ZIPs and metro areas are answered as blocks are (beyond the spec): the area's code keys the
 * draws, its state and typical value scale them. `blockId` holds the code. Each follows from the
 * code alone, so a ZIP or metro asked for directly and through a property answer alike.
 */
export function zipArea(zip: string): BlockPlace {
  const state = stateOfZip(zip) ?? 'US';
  return { blockId: zip, countyFips: countyOf(state, zip), state, typicalValue: typicalValue(zip, state) };
}

/** A known metro area lies in its main county's state; a synthetic one has no state of its own, and the national price level. */
export function msaArea(msa: string): BlockPlace {
  const countyFips = knownMetroCounty(msa) ?? '';
  const state = stateOfFips(countyFips) ?? 'US';
  return { blockId: msa, countyFips, state, typicalValue: typicalValue(undefined, state) };
}
