import { decodeFrame, decodeSection } from './kept-text.js';
import type { ClaimResult, SectionClaim } from './store-api.js';

/**
 * Who buys a section (PROTOCOL.md): the rules, once, for every driver. A driver keeps the state (the
 * claims, the kept sections) and runs these decisions inside one transaction of its own, having
 * taken each section's lock before it reads: then what it reads cannot change before it writes.
 */

/** A claim as a driver keeps it: whose, and until when (the store's clock). */
export interface ClaimRow {
  owner: string;
  expires: number;
}

/** A section's state as a driver reads it once it holds the section's lock. */
export interface SectionState {
  /** The claim on it, live or lapsed, if any. */
  claim: ClaimRow | undefined;
  /** The kept section, if any: its arrival, its text and its item's frame as stored. */
  kept: { at: number; body: unknown; frame: unknown } | undefined;
}

/**
 * Rule 3: a claim stands until its lease runs out; a lapsed one belongs to nobody. `graceMs`: a run
 * back from losing the store counts a claim that lapsed less than this long ago as standing, since
 * its owner may have lost the store too and not been able to renew it (rule 3, outages).
 */
export const isLive = (claim: ClaimRow | undefined, now: number, graceMs = 0): boolean =>
  claim !== undefined && claim.expires > now - graceMs;

/**
 * Rules 1 and 2: a kept section serves when it arrived at or after `freshFrom` (freshness.ts) and
 * reads as an answer, its item's frame as a frame: what a lookup (kept-text.ts, foundItem) would
 * serve, no more. A section kept whole beside a damaged frame is one no lookup serves: said `kept`
 * here, the item was looked up, refused and looked up again forever.
 */
export const serves = (kept: SectionState['kept'], freshFrom: number): boolean =>
  kept !== undefined &&
  Number.isSafeInteger(kept.at) &&
  kept.at >= freshFrom &&
  decodeSection(kept.body) !== undefined &&
  decodeFrame(kept.frame) !== undefined;

export interface ClaimContext {
  owner: string;
  /** The store's now. */
  now: number;
  freshFrom: number;
  /** Rule 6: a waiter past its limit takes even a live claim over (said, as any taking over is). */
  force?: boolean;
  /** Rule 3: a claim lapsed less than this long ago still stands (isLive). */
  graceMs?: number;
}

/**
 * Rule 4, one section: kept (use it), held by another's live claim (wait for its answer), or now
 * `owner`'s: claimed (new, or its own again) or taken over (another's claim had lapsed).
 */
export function decideClaim(state: SectionState, { owner, now, freshFrom, force = false, graceMs = 0 }: ClaimContext): ClaimResult {
  if (serves(state.kept, freshFrom)) return 'kept';
  const { claim } = state;
  if (claim === undefined || claim.owner === owner) return 'claimed';
  return isLive(claim, now, graceMs) && !force ? 'held' : 'took over';
}

/** Whether an outcome makes the section `owner`'s: its claim is to be written. */
export const takes = (outcome: ClaimResult): boolean => outcome === 'claimed' || outcome === 'took over';

/**
 * Rule 4 for one item claimed as it is looked up (Store.claimItem: a one-item call): each section
 * decided (decideClaim), and those that become `owner`'s written only when none is `held`: an item
 * that waits for another's answer holds nothing meanwhile (as one a lookup found held), and claims
 * them when it is looked up again.
 */
export function decideItemClaim(states: readonly SectionState[], context: ClaimContext): { outcomes: ClaimResult[]; writes: boolean } {
  const outcomes = states.map((state) => decideClaim(state, context));
  return { outcomes, writes: !outcomes.includes('held') };
}

const keyOf = (claim: SectionClaim) => `${claim.item}\n${claim.endpoint}\n${claim.params}`;

/**
 * The sections of one claim, each once, in one order for every job (by key): two jobs claiming
 * overlapping sets take their locks in the same order and never wait on each other in a cycle.
 * `place` gives each asked section's index among them.
 */
export function distinctSections(sections: readonly SectionClaim[]): { distinct: SectionClaim[]; place: number[] } {
  const byKey = new Map(sections.map((claim) => [keyOf(claim), claim]));
  const keys = [...byKey.keys()].sort();
  const index = new Map(keys.map((key, i) => [key, i]));
  return { distinct: keys.map((key) => byKey.get(key)!), place: sections.map((claim) => index.get(keyOf(claim))!) };
}
