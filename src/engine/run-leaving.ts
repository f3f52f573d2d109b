import { CLAIMS } from '../policy/policy.js';
import type { Store } from '../store/store-api.js';

/**
 * Runs whose jobs closed and that are still in the store's runs, by store (its location), for every
 * session of this process: `closed`, not asked to leave yet; `going`, their leave on its way. A
 * job's run leaves without keeping its caller waiting: with the next run of this process to enter
 * that store, in the same statement (a library client's next call: one round trip for both instead
 * of two), or on its own at the next turn of the event loop, and before its session closes.
 * Meanwhile other processes see it running, as if its job had closed that moment later; no run of
 * this process that begins after it closed counts it (PROTOCOL.md, rule 1).
 */
const closedRuns = new Map<string, { closed: Set<string>; going: Set<string> }>();

function closedOn(store: Store): { closed: Set<string>; going: Set<string> } {
  let runs = closedRuns.get(store.location);
  if (!runs) closedRuns.set(store.location, (runs = { closed: new Set(), going: new Set() }));
  return runs;
}

/** The run `id`'s job closed (`leaving` holds its leave until done): it leaves with the next run to enter the store, or on its own at the next turn of the event loop. */
export function closeRun(store: Store, leaving: Set<Promise<void>>, id: string): void {
  const { closed, going } = closedOn(store);
  closed.add(id);
  const left = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
    // Taken out by a run that entered meanwhile: it leaves with it.
    if (!closed.delete(id)) return;
    going.add(id);
    // Failed, its entry lapses within a lease (rule 1): the job's answers are all kept by now.
    await store.leaveRun(id).catch(() => undefined);
    going.delete(id);
  });
  leaving.add(left);
  void left.finally(() => leaving.delete(left));
}

/**
 * Enters the run `id` in the store's runs, and takes out the runs of this process that closed
 * (closeRun) in the same statement: those still to leave, and those whose leave is on its way.
 */
export function enterRun(store: Store, account: string, id: string): Promise<number> {
  return withLeft(store, (left) => store.enterRun(account, id, CLAIMS.leaseMs, left));
}

/** `enter` given the runs of this process that closed (closeRun), to take out as it enters a run (enterRun, lookUpClaiming). */
export async function withLeft<T>(store: Store, enter: (left: readonly string[]) => Promise<T>): Promise<T> {
  const { closed, going } = closedOn(store);
  const taken = [...closed];
  closed.clear();
  for (const ended of taken) going.add(ended);
  try {
    return await enter([...going]);
  } catch (error) {
    // Still to leave, with the next run that enters.
    for (const ended of taken) closed.add(ended);
    throw error;
  } finally {
    for (const ended of taken) going.delete(ended);
  }
}
