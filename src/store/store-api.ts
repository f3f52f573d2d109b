import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { SharedPacer } from '../throttle/shared-pacer.js';
import type { Frame } from '../model/chunk-frame.js';
import type { ItemRef, SectionRef } from '../model/section-refs.js';
import type { KeyStore } from './key-store.js';
import type { RequestRecord, ReuseRecord, Usage, UsageQuery } from './spend.js';

/**
 * The store's contract, whatever keeps it (a local SQLite file, a shared PostgreSQL): one interface,
 * two drivers, one test suite for both (as bottleneck runs one suite over its local and Redis
 * datastores). Everything is asynchronous because a network database is; the SQLite driver answers
 * at once. Every method is filed under an account (base URL and key fingerprint, store/account.ts):
 * test keys, the sandbox and live answers never mix, and several accounts may share one store.
 *
 * The one rule the store exists for: an answer the account has paid for is never bought again
 * while it is fresh enough, whichever command, run, process or machine asks for it. So what is kept
 * is a **section** (one endpoint's answer for one item), filed under the item's identity (level and
 * normalized identifiers, never the command that bought it), the endpoint, and that endpoint's own
 * parameters. `property value`, an `mget` naming value among others, a one-off and `call
 * v2/property/value` all find the same section.
 *
 * Every failure of the store itself is one StoreError naming the way out (--no-store); a stored
 * blob that cannot be read is not a failure but a missing section (`FoundItem.damaged`).
 */
export interface Store {
  /** Where it is, for messages: a file path, or a database URL without its password. */
  readonly location: string;

  // --- answers -------------------------------------------------------------------------------

  /**
   * What the store holds of each item's sections, fresh by `freshness`: one FoundItem per ItemRef, in
   * order. One round trip for the lot (a read transaction), whatever the number of items.
   */
  find(account: string, items: readonly ItemRef[], freshness: Freshness): Promise<FoundItem[]>;

  /**
   * Claims sections this process is sending now (PROTOCOL.md), so that another job on the same store
   * (on this machine or another) waits for this one's answer instead of buying it too. Atomic per
   * section, decided by the protocol's rules (claim-protocol.ts) under the section's lock: a section
   * kept fresh is `kept` (not claimed: find it and use it); one claimed by a live claim of another
   * owner is `held`; otherwise it is now this owner's, `claimed` (claiming again what one holds
   * renews it) or `took over` (another owner's claim had lapsed; or, with `force`, was still live: a
   * waiter past its limit). A claim lapses `leaseMs` after it was made or last renewed; with
   * `graceMs`, one lapsed less than that long ago still stands (a run back from an outage: rule 3).
   */
  claim(
    account: string,
    owner: string,
    sections: readonly SectionClaim[],
    freshness: Freshness,
    leaseMs: number,
    options?: ClaimOptions,
  ): Promise<ClaimResult[]>;

  /**
   * Extends every claim `owner` still holds by `leaseMs` from now (the run's heartbeat): a lapsed one
   * too, as long as nobody took it over (its owner was cut off from the store, and is back).
   */
  renewClaims(owner: string, leaseMs: number): Promise<void>;

  /** Gives up every claim of `owner`: a run that ends leaves nothing for another job to wait on. */
  releaseAll(owner: string): Promise<void>;

  /** Gives claims up without an answer (the request failed, the run stopped): a waiting job may buy them. */
  release(account: string, owner: string, sections: readonly SectionClaim[]): Promise<void>;

  /** Which of these sections are held by a live claim of another owner now (`graceMs`: as `claim`). */
  held(account: string, owner: string, sections: readonly SectionClaim[], options?: { graceMs?: number }): Promise<boolean[]>;

  /**
   * One item looked up and claimed at once, for a run that sends it as soon as it is looked up (a
   * one-item call: one transaction instead of a lookup and then a claim). Under its sections' locks,
   * as `claim` does, each section is decided (`outcomes`, in the item's order), and those that become
   * `owner`'s are written only when none is `held` (decideItemClaim). `found`: the item as `find`
   * would give it at that moment. With `enter`, the run is entered in the store's runs in the same
   * transaction, as enterRun would (its entry's lease `leaseMs`), and the earliest start it gives
   * (`entered`) bounds `freshness.since`. A driver whose lookup costs little leaves it out (SQLite):
   * the run then enters, looks up, and claims as it sends.
   */
  claimItem?(
    account: string,
    owner: string,
    item: ItemRef,
    freshness: Freshness,
    leaseMs: number,
    options?: ItemClaimOptions,
  ): Promise<ItemClaim>;

  /**
   * What one request left, in one transaction: its spend record, the windows its answer stated, the
   * answers it brought (each section kept, replacing an older or damaged one, never a newer one), and
   * the release of the claims on those sections. Applied once: an entry whose request is recorded
   * already (same account, run and time) changes nothing (a one-off's record applied twice).
   */
  record(entry: StoreEntry): Promise<void>;

  /**
   * Several requests, as `record` would each, in one transaction: the run hands over what was
   * answered while its last group was written (engine/run-store.ts), so that a fast run writes
   * many requests a commit.
   */
  recordMany(entries: readonly StoreEntry[]): Promise<void>;

  // --- jobs ----------------------------------------------------------------------------------

  /**
   * The job a run belongs to: the same command on the same input and output, until it completes.
   * Returns when the job began: a new job now, or an unfinished one's start (the run continues it,
   * and everything bought since then is reused whatever --max-age says: it was bought for this job).
   */
  beginJob(account: string, job: string): Promise<number>;

  /**
   * Another name of a running job (its output's file, found by another path), begun at `since` (the
   * job's start, from beginJob) unless a job of that name is running already.
   */
  nameJob(account: string, job: string, since: number): Promise<void>;

  /** The job completed: its next run is a new job. */
  finishJob(account: string, job: string): Promise<void>;

  /** When an unfinished job began, without beginning one (an estimate of its next run); undefined when there is none. */
  jobSince(account: string, job: string): Promise<number | undefined>;

  // --- runs ----------------------------------------------------------------------------------

  /**
   * `run` is running on the store, for the account, for `leaseMs` from now (called again, the lease
   * is renewed and its start kept). Returns the earliest start among the account's runs running now,
   * this one's included, on the store's clock: what a run counts as fresh from (PROTOCOL.md, rule 1).
   * `left`: runs that ended and leave in the same transaction (leaveRun), counted no more.
   */
  enterRun(account: string, run: string, leaseMs: number, left?: readonly string[]): Promise<number>;

  /** Renews `run`'s lease (the run's heartbeat), as enterRun does. */
  renewRun(account: string, run: string, leaseMs: number): Promise<void>;

  /** `run` ended: no run that starts from now on shares what was bought since its start. */
  leaveRun(run: string): Promise<void>;

  // --- spend ---------------------------------------------------------------------------------

  /** Rows a run answered from the store, and the list price of the sections it did not buy. */
  recordReuse(reuse: ReuseRecord): Promise<void>;
  usage(query: UsageQuery): Promise<Usage>;
  /** USD at list price billed to the account in the UTC month holding now (for --max-cost-month). */
  monthToDateCost(account: string): Promise<number>;
  /** The accounts the store holds anything for (answers, spend or windows): `usage` and `store info` without credentials. */
  accounts(): Promise<string[]>;

  // --- pacing --------------------------------------------------------------------------------

  /** The windows the service last reported for the account, as they stand now, if fresh (STORE_WAITS.windowsFreshMs). */
  loadWindows(account: string): Promise<ReportedWindow[] | undefined>;
  /** The pacer `owner` (one run) shares with the account's other runs on this store. */
  pacer(account: string, owner: string): SharedPacer;

  // --- a gateway's client keys ---------------------------------------------------------------

  /** The keys `propdata serve` accepts and what each spent (key-store.ts). */
  readonly keys: KeyStore;

  // --- upkeep --------------------------------------------------------------------------------

  /** What it holds, of every account or of one. */
  info(account?: string): Promise<StoreInfo>;
  /** Removes answers that arrived `olderThanMs` or more ago; returns how many sections. */
  prune(olderThanMs: number): Promise<number>;
  /** Removes the answers and remembered limits of one account or of all; spend records stay. Returns how many sections. */
  clear(scope: ClearScope): Promise<number>;
  /**
   * Problems met while in use that the run should report once: sections that could not be read
   * (bought again and replaced), a store found damaged. Empty when none.
   */
  problems(): StoreProblems;
  close(): Promise<void>;
}

export type { ItemRef, SectionRef };

/** How a command opens a store (store/open-store.ts), whichever driver it is. */
export interface StoreOptions {
  /** Read only (usage, store info): nothing is created or migrated, and a store not there yet is not made. */
  readonly?: boolean;
  /** SQLite: how long to wait for another process's write to finish before giving up. */
  busyTimeoutMs?: number;
  /** PostgreSQL: the connections the store keeps open, shared by everything the process runs on it at once. Default 6. */
  connections?: number;
  /**
   * The run's clock (tests give a fake one; default the system's). It is the SQLite store's own
   * clock; a database keeps its own, and converts the times it exchanges with the run.
   */
  now?: () => number;
}

export interface SectionClaim extends SectionRef {
  item: string;
}

export type ClaimResult = 'claimed' | 'took over' | 'held' | 'kept';

/** One item as Store.claimItem found and claimed it. */
export interface ItemClaim {
  found: FoundItem;
  /** Each section's decision; those that take are the owner's only when none is `held`. */
  outcomes: ClaimResult[];
  /** With `enter`: the earliest start among the account's runs running now, this one's included (as enterRun gives it). */
  entered?: number;
}

export interface ItemClaimOptions {
  /** As ClaimOptions.graceMs. */
  graceMs?: number;
  /** The run to enter in the store's runs in the same transaction (`left`: as enterRun's). */
  enter?: { run: string; left: readonly string[] };
}

export interface ClaimOptions {
  /** A waiter past its limit: a live claim of another is taken over too (PROTOCOL.md, rule 6). */
  force?: boolean;
  /** A claim lapsed less than this long ago still stands (PROTOCOL.md, rule 3: a run back from an outage). */
  graceMs?: number;
}

/**
 * Which kept sections count (freshness.ts, the one rule). A section counts when it arrived within
 * `maxAgeMs` of now (--max-age; undefined: age alone never qualifies), or at or after `since` (the
 * start of the job the run continues; undefined: none). Times are the store's clock: the database's
 * for a shared store.
 */
export interface Freshness {
  maxAgeMs?: number | undefined;
  since?: number | undefined;
}

export interface FoundItem {
  /**
   * The chunk's other members (address_info, block_info...) as last kept for the item, with where its
   * sections go; undefined when no section was found.
   */
  frame?: Frame;
  /** One entry per SectionRef asked: the section's body as the service sent it, or undefined (missing, stale or damaged). */
  sections: (KeptSection | undefined)[];
  /** Sections kept but unreadable (a damaged blob): counted as missing, replaced when bought again. */
  damaged: number;
}

export interface KeptSection {
  body: unknown;
  /** When it arrived, on the store's clock. */
  at: number;
}

/** One request's trace in the store (Store.record). */
export interface StoreEntry {
  request: RequestRecord;
  /** The windows its answer stated (none: nothing is saved). */
  windows: readonly ReportedWindow[];
  /** The answers it brought: errors never are. */
  answers: readonly KeptAnswer[];
  /** The claims this request settles (its owner's, on the sections it asked for). */
  owner?: string;
  settles?: readonly SectionClaim[];
  /**
   * When its answers arrived, on the store's clock, for an entry recorded late (a one-off's,
   * applied at the store's next opening: store/pending.ts); absent: now. An answer that arrived
   * before the one kept never replaces it.
   */
  arrivedAt?: number;
}

export interface KeptAnswer {
  item: string;
  /** The chunk's other members as received, with where its sections were. */
  frame: Frame;
  sections: readonly { ref: SectionRef; body: unknown }[];
}

export interface AnswerCount {
  account: string;
  endpoint: string;
  /** Sections kept (each set of the endpoint's parameters counts apart). */
  answers: number;
  /** Epoch ms of the oldest and newest answer. */
  oldest: number;
  newest: number;
}

export interface StoreInfo {
  location: string;
  /** Its size on disk (a file with its write-ahead log). */
  bytes: number;
  answers: AnswerCount[];
  /** Requests recorded for `usage`. */
  requests: number;
}

export type ClearScope = { account: string } | { allAccounts: true };

export interface StoreProblems {
  /** Sections found unreadable in this store's lifetime (each also bought again). */
  damaged: number;
  /** A failure the store met and survived that the user should know of (a damaged file found on close). */
  notes: readonly string[];
}
