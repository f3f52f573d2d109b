import type { StoreError } from '../errors/index.js';
import { formatDuration } from '../pipeline/format-duration.js';

/**
 * What a process says as its store stops answering and as it answers again: the CLI on stderr, a
 * library client through its logger, a gateway in its log. One wording for all three, so that an
 * operator's alert on it matches whichever runs. `setting`: what sets the wait (`--store-wait`).
 */
export function storeLostNote(reason: StoreError, waitMs: number, setting?: string): string {
  const limit = `${formatDuration(waitMs / 60_000)} at most${setting === undefined ? '' : ` (${setting})`}`;
  return `the store stopped answering: ${reason.reason}; sending paused until it answers again, for ${limit}`;
}

/** The store is back after `afterMs`; `journaled`: the requests answered meanwhile, kept on this machine and now stored. */
export function storeBackNote(afterMs: number, journaled: number): string {
  const kept = journaled === 0 ? '' : ` (what ${journaled === 1 ? 'one request' : `${journaled} requests`} answered meanwhile is stored)`;
  return `the store answers again after ${Math.ceil(afterMs / 1000)} s; sending goes on${kept}`;
}
