import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SectionClaim, Store, StoreEntry } from './store-api.js';
import { STORE_WAITS } from '../policy/policy.js';

/** A file being written: published by renaming it to `.json` once whole, so a reader never sees half of one. */
const WRITING = '.writing';

/** Entries a SQLite store's next opening applies, beside its file: `propdata.db.pending/`. */
export function pendingDir(storePath: string): string {
  return `${storePath}.pending`;
}

/**
 * Leaves an entry in `dir` (this machine's journal of a store: pendingDir, or journalDirFor) for
 * the store's next opening, or its return from an outage, to apply (foldPending), without the store:
 *
 * - a one-off records its request this way: loading SQLite and the store's code and opening the
 *   file took 50 to 60 ms after a one-off's answer, a third of its wall time (BENCHMARKS.md,
 *   start-up); this takes one small file;
 * - a run keeps here what is answered while its store is out of reach (store/outage.ts): a kill
 *   then loses none of it, and any later run applies it.
 *
 * Private to the user, as the store is.
 */
export function writePending(dir: string, entry: StoreEntry, name = pendingName(entry.request.at)): void {
  publish(dir, name, entry);
}

/** A new entry's name in a journal: its time, then what makes it this process's own. */
export const pendingName = (at: number): string => `${at}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

/** Writes `content` as `name` in `dir`, whole or not at all, replacing what had that name. */
function publish(dir: string, name: string, content: unknown): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, `${name}${WRITING}`), JSON.stringify(content), { mode: 0o600 });
  renameSync(join(dir, `${name}${WRITING}`), join(dir, `${name}.json`));
}

/**
 * What a one-off is buying while it leaves its store unopened (PROTOCOL.md, rule 7): the sections,
 * claimed for `owner` until `expires` (Date.now's ms) by any process that opens the store meanwhile.
 * Its answer's entry (writePending, the same name) replaces it in one rename: a reader finds the
 * claim or the answer, never neither.
 */
export interface ClaimIntent {
  claim: { account: string; owner: string; sections: readonly SectionClaim[]; expires: number };
}

export function writeClaimIntent(dir: string, name: string, intent: ClaimIntent): void {
  publish(dir, name, intent);
}

/** Removes an intent (or an entry) by its name: its request failed, or it is in the store. */
export function removePending(dir: string, name: string): void {
  removeQuietly(join(dir, `${name}.json`));
}

/** An intent still live is claimed for its owner; a lapsed one (its process died) is removed. */
async function applyIntent(store: Store, path: string, { claim }: ClaimIntent): Promise<void> {
  const leaseMs = claim.expires - Date.now();
  if (leaseMs <= 0) removeQuietly(path);
  else await store.claim(claim.account, claim.owner, claim.sections, {}, leaseMs);
}

/** Whether entries are waiting in `dir` to be applied: a read-only opening applies them first. */
export function hasPending(dir: string): boolean {
  try {
    return readdirSync(dir).some((name) => name.endsWith('.json'));
  } catch {
    return false;
  }
}

/**
 * An entry as read back. One written by a propdata before schema 3 has an `answer` filed by the
 * command's path, which the store can no longer file (its answers were dropped alike): its spend
 * and windows are kept.
 */
function entryOf(written: StoreEntry): StoreEntry {
  // Applied as of its request: an answer kept meanwhile by a running batch is newer, and stays.
  return { ...written, answers: Array.isArray(written.answers) ? written.answers : [], arrivedAt: written.request.at };
}

/**
 * Applies the entries left in `dir`, oldest first, each recorded once (Store.record changes
 * nothing for a request recorded already); then removes its file. Several processes may fold at
 * once, or a process may die between a commit and the removal: either is harmless. Returns how
 * many it applied.
 */
export async function foldPending(store: Store, dir: string): Promise<number> {
  let names: string[];
  let applied = 0;
  try {
    names = readdirSync(dir).sort();
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name.endsWith(WRITING)) {
      if (ageOf(path) > STORE_WAITS.pendingAbandonedMs) removeQuietly(path);
      continue;
    }
    if (!name.endsWith('.json')) continue;
    let entry: StoreEntry | ClaimIntent;
    try {
      entry = JSON.parse(readFileSync(path, 'utf8')) as StoreEntry | ClaimIntent;
    } catch {
      // Another process folded and removed it meanwhile.
      continue;
    }
    // A one-off's claim stays for its owner to replace with its answer.
    if ('claim' in entry) {
      await applyIntent(store, path, entry);
      continue;
    }
    await store.record(entryOf(entry));
    removeQuietly(path);
    applied += 1;
  }
  return applied;
}

function ageOf(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Removed by another process folding at the same time.
  }
}
