import { hostname } from 'node:os';
import type { SendableItem } from '../batching/batch.js';
import { joinChunk, keptParts } from '../model/chunk-frame.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import { itemRefOf, type ItemRef } from '../model/section-refs.js';
import type { KeptAnswers, Purchase, Resolution, Saving } from '../pipeline/kept-answers.js';
import { billedCost } from '../pipeline/pricing.js';
import type { Exchange } from '../pipeline/send-batch.js';
import { takes } from '../store/claim-protocol.js';
import type { FoundItem, Freshness, ItemClaim, KeptAnswer, SectionClaim, Store, StoreProblems } from '../store/store-api.js';
import type { RequestRecord } from '../store/spend.js';
import type { Clock } from '../throttle/clock.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { SharedPacer } from '../throttle/shared-pacer.js';
import { CLAIMS } from '../policy/policy.js';
import { JobClaims, type SessionHolders } from './job-claims.js';
import { beginJobNamed, identityOf, nameJob, type JobIdentity, type JobNames } from './job-names.js';
import { closeRun, enterRun, withLeft } from './run-leaving.js';
import { recordGroups, StoreWrites, type RecordGroups } from './store-writes.js';

/** The time in the latest run name this process gave. */
let lastNamed = 0;

let host: string | undefined;
/** This machine's name, asked once a process: os.hostname() is a system call (8 to 13 µs), and a one-item call is a run. */
const thisHost = (): string => (host ??= hostname());

/** Which run it is: when it started, on which machine, its process. */
function runId(now: number): string {
  // Two runs a process starts in one millisecond (library batches) are named a millisecond apart:
  // a name is whose claims are whose, and which requests are which in the spend log.
  lastNamed = Math.max(Math.floor(now), lastNamed + 1);
  return `${new Date(lastNamed).toISOString()} ${thisHost()} ${process.pid}`;
}

/**
 * A run's name in the spend log and its claims: which run it is (runId), and what ran it (`label`:
 * the CLI's command line, a library caller's name for it; `usage --by run` shows it).
 */
export function runName(now: number, label: string): string {
  return `${runId(now)} ${label}`;
}

/** What was called, as the spend log names it: an endpoint, or an mget's sections joined with commas. */
function endpointOf(target: QueryTarget): string {
  return target.sections.length > 0 ? sectionKeys(target).join(',') : target.path;
}

/** What a request is recorded as in the spend log. */
export interface SpendSettings {
  account: string;
  run: string;
  /** USD at list price per section name. */
  prices: Readonly<Record<string, number>>;
}

/** One request's spend record: every section the request asked for is counted when billed, at its list price (0 outside the catalog). */
export function requestRecordOf(spend: SpendSettings, exchange: Exchange, at: number): RequestRecord {
  const sectionPrices = Object.fromEntries(sectionKeys(exchange.target).map((name) => [name, spend.prices[name] ?? 0]));
  const { billed, cost } = billedCost(exchange.chunks, sectionPrices);
  return {
    at,
    run: spend.run,
    account: spend.account,
    endpoint: endpointOf(exchange.target),
    items: exchange.items,
    components: exchange.components,
    status: exchange.status,
    billed,
    cost,
  };
}

type RefOf = (target: QueryTarget, item: SendableItem['item']) => ItemRef;

/**
 * itemRefOf, each item's ref made once per target: a run asks for an item's ref as it looks it up,
 * claims it, records its answer and releases it (an item's identity is JSON made from it). An item
 * the store answers whole is asked for nothing more: its ref is not remembered (`find`, then `keep`
 * for the others), which spared a rerun a weak map's entry a row.
 */
class ItemRefs {
  readonly #byTarget = new WeakMap<QueryTarget, WeakMap<SendableItem['item'], ItemRef>>();

  readonly of: RefOf = (target, item) => {
    const refs = this.#refs(target);
    let ref = refs.get(item);
    if (!ref) refs.set(item, (ref = itemRefOf(target, item)));
    return ref;
  };

  /** The item's ref, remembered or made now (and not remembered). */
  find(target: QueryTarget, item: SendableItem['item']): ItemRef {
    return this.#byTarget.get(target)?.get(item) ?? itemRefOf(target, item);
  }

  keep(target: QueryTarget, item: SendableItem['item'], ref: ItemRef): void {
    this.#refs(target).set(item, ref);
  }

  #refs(target: QueryTarget): WeakMap<SendableItem['item'], ItemRef> {
    let refs = this.#byTarget.get(target);
    if (!refs) this.#byTarget.set(target, (refs = new WeakMap()));
    return refs;
  }
}

/** The answers a request brought, as the store keeps them: each usable chunk's frame and answered sections, by the item's identity. */
export function keptAnswersOf(exchange: Exchange, refOf: RefOf = itemRefOf): KeptAnswer[] {
  const members = sectionKeys(exchange.target);
  const kept: KeptAnswer[] = [];
  exchange.answers?.forEach((chunk, i) => {
    if (chunk === undefined) return;
    const ref = refOf(exchange.target, exchange.sent[i]!.item);
    const { frame, sections } = keptParts(chunk, members);
    const answered = sections.flatMap((body, s) => (body === undefined ? [] : [{ ref: ref.sections[s]!, body }]));
    if (answered.length > 0) kept.push({ item: ref.item, frame, sections: answered });
  });
  return kept;
}

/** The claims on the sections of an item at these indices (all, by default). */
function claimsOf(ref: ItemRef, sections: readonly number[] = ref.sections.map((_, s) => s)): SectionClaim[] {
  return sections.map((s) => ({ item: ref.item, ...ref.sections[s]! }));
}

/** The sections (indices) a found item lacks: missing, stale or damaged. */
function lackingOf(item: FoundItem): number[] {
  const lacking: number[] = [];
  item.sections.forEach((section, s) => {
    if (section === undefined) lacking.push(s);
  });
  return lacking;
}

/** What the store would leave to buy of each item, for an estimate of a run (nothing is claimed). */
export function lackingIn(store: Store, account: string, target: QueryTarget, freshness: Freshness) {
  return async (items: readonly SendableItem[]): Promise<number[][]> => {
    const found = await store.find(
      account,
      items.map((item) => itemRefOf(target, item.item)),
      freshness,
    );
    return found.map(lackingOf);
  };
}

/** What the run says of the claims it took from other jobs (PROTOCOL.md, rules 3 and 6). */
function tookOverNotes({ lapsed, forced }: { lapsed: number; forced: number }): string[] {
  const sections = (n: number) => `${n.toLocaleString('en-US')} section${n === 1 ? '' : 's'}`;
  // A claim lapses when its owner renews it for a lease while the store answers: that run stopped,
  // or lost the store while this one had it (never an outage both met: rule 3).
  return [
    ...(lapsed > 0
      ? [
          `bought ${sections(lapsed)} another run had claimed and not renewed for a lease while the store answered (it stopped, or lost the store)`,
        ]
      : []),
    ...(forced > 0
      ? [
          `bought ${sections(forced)} another run still claimed after waiting ${CLAIMS.waitLimitMs / 60_000} minutes for its answer: that run may buy them too`,
        ]
      : []),
  ];
}

/** What a job asks of the store: the answers (KeptAnswers), the budget, the job. */
export interface RunStore {
  readonly kept: KeptAnswers;
  /** Month-to-date cost of the account at list price, for --max-cost-month. */
  monthToDateCost(): Promise<number>;
  /** The run wrote every row with a final answer: the job is complete, and its next run is a new one. */
  finishJob(): Promise<void>;
  /** Damaged sections met, and what else the store wants said once. */
  problems(): StoreProblems;
  /** Records the rows answered from the store and what they saved; gives up the job's claims. */
  close(fromStore: number, savedUsd: number): Promise<void>;
}

/** What one job on a session asks of its store: what it looks up and buys, how fresh, for which job. */
export interface RunStoreJob {
  target: QueryTarget;
  /** --max-age in ms; undefined: age alone never makes an answer reusable. */
  maxAgeMs: number | undefined;
  /** The job this run belongs to (the same command on the same input and output), when it has one: its name, or its names (JobIdentity). */
  job?: string | JobIdentity;
  /** USD at list price per section name, for the spend records and the savings. */
  prices: Readonly<Record<string, number>>;
  /**
   * One item, sent as soon as it is looked up (a one-item call): its lookup claims what it lacks in
   * the same transaction (Store.claimItem), one claim instead of a lookup and then a claim.
   */
  oneItem?: boolean;
}

/** The store's side of a session (engine/session.ts): its name in the spend log, its pacer, its windows, and each job's run store. */
export interface SessionRuns {
  /** The session's name in the spend log: every job on it files its requests under it (`usage --by run`). */
  readonly run: string;
  /** The store itself, open for the session's life (a gateway's keys and spend book use it too); none when it is not opened. */
  readonly store?: Store;
  /** The pacer shared with the account's other sessions on this store (RateLimiter.shareWith); none when the store is not opened. */
  pacer(): SharedPacer | undefined;
  /** The windows the service last reported for this account, if still fresh. */
  windows(): Promise<ReportedWindow[] | undefined>;
  /** A job's dealings with the store, until its close. */
  openRun(job: RunStoreJob): Promise<RunStore>;
  /** Sections the session's open jobs hold claims on now (a gateway's /metrics). */
  claimsHeld(): number;
  /** Gives up the session's share of the windows, and closes the store. */
  close(): Promise<void>;
}

export interface SessionRunsSettings {
  store: Store;
  account: string;
  /**
   * The account whose windows the session paces by, when not `account`: the built-in sandbox's answers
   * are one account whatever its port, but each sandbox is a server of its own, with its own windows.
   */
  pacingAccount?: string;
  clock: Clock;
  /** What runs it, for its name in the spend log: the command line without credentials, a library caller's label, `serve ADDRESS`. */
  runLabel: string;
  /**
   * Its name, when it began beside its store before opening it (run-store-beside.ts): the spend log's
   * run, and the name its jobs claim under (but a job continued by name): the claims it left beside
   * the store are its own.
   */
  run?: string;
  /**
   * The one name every job of the session claims under (but a job continued by name), when it is to
   * outlive the process: a gateway's (`HOST serve ADDRESS`), so that the next one on that host and
   * address takes over at once what a killed one was buying, instead of its clients' retries waiting
   * out the lease. Absent: each job claims under a name of its own.
   */
  claimant?: string;
}

/** What every job of a session shares of the store: the store, the session's name, its request times and its heartbeat. */
interface SessionContext {
  settings: SessionRunsSettings;
  run: string;
  /** Time and run identify a request (the store records it once): two answers in one millisecond are a millisecond apart. */
  requestTime: () => number;
  /** Each open job's renewal of its claims and of its entry in the store's runs, called at every beat. */
  renewals: Set<() => void>;
  /** The claims of each open job. */
  open: Set<JobClaims>;
  /** With one claimant for the session: which job holds each section it claimed. */
  holders: SessionHolders | undefined;
  /** Its jobs' runs leaving the store's runs on their own (closeRun): the session closes once they have. */
  leaving: Set<Promise<void>>;
}

/**
 * The store for a session's life. Everything is filed under the account, and every request under the
 * session's run. Each job on it claims what it is about to buy under a name of its own (its job's,
 * when it continues one), so that jobs of one session wait for each other's purchases as they wait
 * for another process's; one heartbeat renews the claims of every job open, and each one's entry in
 * the store's runs.
 */
export function openSessionRuns(settings: SessionRunsSettings): SessionRuns {
  const { store, account, clock } = settings;
  const id = runId(clock.now());
  const pacingAccount = settings.pacingAccount ?? account;
  // The pacer's state names its owner in each of its reservations, read and written back at each
  // grant: the session's id alone, not its command line (the state was 12 KB at 100 requests a second).
  const pacer = store.pacer(pacingAccount, id);
  let lastAt = 0;
  const session: SessionContext = {
    settings,
    run: settings.run ?? `${id} ${settings.runLabel}`,
    requestTime: () => (lastAt = Math.max(clock.now(), lastAt + 1)),
    renewals: new Set(),
    open: new Set(),
    holders: claimantOf(settings) === undefined ? undefined : new Map(),
    leaving: new Set(),
  };
  // The heartbeat that keeps the jobs' claims alive until they close. On the machine's own timer,
  // not the run's clock: a lease is about the process being alive, and a test's clock that leaps
  // ahead would otherwise spin it.
  const heartbeat = setInterval(() => {
    for (const renew of session.renewals) renew();
  }, CLAIMS.renewalMs);
  heartbeat.unref();
  return {
    run: session.run,
    store,
    pacer: () => pacer,
    windows: () => store.loadWindows(pacingAccount),
    openRun: (job) => openRunStore(session, job),
    claimsHeld: () => [...session.open].reduce((held, claims) => held + claims.held, 0),
    async close() {
      clearInterval(heartbeat);
      await Promise.all(session.leaving);
      try {
        // The session asks for nothing more: nothing of its claims is left to wait on, and its share
        // of the windows goes to the others at once.
        const claimant = claimantOf(settings);
        if (claimant !== undefined) await store.releaseAll(claimant);
        await pacer.leave();
      } finally {
        await store.close();
      }
    },
  };
}

/** The one name a session's jobs claim under, if it has one: a gateway's, or a one-off's that began beside its store. */
const claimantOf = (settings: SessionRunsSettings): string | undefined => settings.claimant ?? settings.run;

/**
 * One job's store. The job is continued when unfinished (the same command stopped before it wrote
 * every row), and whatever was bought since it began is reused whatever --max-age says; it was
 * bought for this very job. Sections the job is about to buy are claimed, so that a job running
 * beside it on the same store waits for its answer instead of buying it too.
 */
async function openRunStore(session: SessionContext, job: RunStoreJob): Promise<RunStore> {
  const { store, account, clock } = session.settings;
  // A run of its own in the store's runs, each job (a gateway's request too): what was kept since
  // the start of any run on the store now is reused, this one's included (PROTOCOL.md, rule 1):
  // runs that overlap share what they buy.
  const id = runId(clock.now());
  // A one-item call's run enters with its item's claim, in the same round trip (lookUpClaiming).
  if (claimsAsItLooks(store, job)) return jobStore(session, job, { id, entering: true });
  const sharedFrom = await enterRun(store, account, id);
  try {
    // What was bought since the run's job began is reused whatever --max-age says: it was bought for
    // this job. A run of no job (a library call) is a job of its own from now: an answer another
    // run buys while this one waits for it is this run's too, and nothing is left in the store's jobs.
    const named = job.job === undefined ? undefined : await beginJobNamed(store, account, identityOf(job.job));
    return jobStore(session, job, { id, since: Math.min(sharedFrom, named?.since ?? sharedFrom), ...(named ? { named } : {}) });
  } catch (error) {
    await store.leaveRun(id);
    throw error;
  }
}

/** A job's store once it is in the store's runs (`id`), its job begun (`named`), what it reuses decided (`since`). */
function jobStore(
  session: SessionContext,
  job: RunStoreJob,
  entered: { id: string; since?: number; named?: JobNames; entering?: true },
): RunStore {
  const { store, account, clock } = session.settings;
  const { id, since, named } = entered;
  // Claims are the job's on this machine, by what it does and when it began (whatever its output is
  // called): a run that continues it (after a kill -9, through another path to its output) takes
  // over what the killed run was buying instead of waiting out its lease. Two runs of one job never
  // overlap on one machine (the output's lock); two machines writing the same path, each on its
  // own disk, are one job to the store, and each claims under its own name (they bought 40 of 60
  // items twice under one).
  const shared = named === undefined ? claimantOf(session.settings) : undefined;
  const claimant =
    named !== undefined ? `job ${named.identity.command} ${named.since} ${thisHost()}` : (shared ?? `${id} ${session.settings.runLabel}`);
  const writes = new StoreWrites();
  const run: RunContext = {
    settings: { ...session.settings, ...job },
    members: sectionKeys(job.target),
    refs: new ItemRefs(),
    claimant,
    ...(named ? { job: named } : {}),
    freshness: { maxAgeMs: job.maxAgeMs, since },
    ...(entered.entering ? { entering: id } : {}),
    spend: { account, run: session.run, prices: job.prices },
    requestTime: session.requestTime,
    writes,
    records: recordGroups(store, writes),
    tookOver: { lapsed: 0, forced: 0 },
    claims: new JobClaims(shared === undefined ? undefined : session.holders),
    damaged: new Map(),
    boughtAgain: 0,
  };
  const renew = () =>
    writes.add(async () => {
      await store.renewClaims(claimant, CLAIMS.leaseMs);
      await store.renewRun(account, id, CLAIMS.leaseMs);
    });
  session.renewals.add(renew);
  session.open.add(run.claims);
  return {
    kept: keptAnswers(run),
    monthToDateCost: () => store.monthToDateCost(account),
    finishJob: async () => {
      for (const name of named?.named ?? []) await store.finishJob(account, name);
    },
    problems: () => {
      const problems = store.problems();
      return { damaged: run.boughtAgain, notes: [...problems.notes, ...tookOverNotes(run.tookOver)] };
    },
    async close(fromStore, savedUsd) {
      session.renewals.delete(renew);
      try {
        await writes.done;
        // Nothing more is bought: no other job waits on this one, nor shares from its start.
        await releaseLeft(run, shared !== undefined || (named === undefined && !writes.failed));
      } finally {
        session.open.delete(run.claims);
      }
      closeRun(session.settings.store, session.leaving, id);
      if (fromStore > 0 || savedUsd > 0) {
        const endpoint = endpointOf(job.target);
        await store.recordReuse({ at: clock.now(), run: session.run, account, endpoint, rows: fromStore, saved: savedUsd });
      }
    },
  };
}

/** What a run's dealings with the store share: who it is, what is fresh, its writes, what it took over. */
interface RunContext {
  settings: SessionRunsSettings & RunStoreJob;
  members: readonly string[];
  refs: ItemRefs;
  /** Whose claims this run's are: the job's, or the run's own when it belongs to none. */
  claimant: string;
  /** The run's job, when it has one: its names in the store so far. */
  job?: JobNames;
  /** The run's id while it is still to enter the store's runs: with its item's claim (lookUpClaiming). */
  entering?: string;
  /** The job's names asked again once the output is open (JobIdentity.names), before the first claim. */
  renamed?: Promise<void>;
  freshness: Freshness;
  spend: SpendSettings;
  requestTime: () => number;
  writes: StoreWrites;
  records: RecordGroups;
  /** Sections this run bought though another job had claimed them: lapsed claims, and live ones a wait outlasted. */
  tookOver: { lapsed: number; forced: number };
  /** The claims this run holds: taken and not settled or given back yet. */
  claims: JobClaims;
  /**
   * Of each item a lookup found damaged (by identity), how many of its sections: counted once its
   * answer is in (`boughtAgain`), not at each lookup. An item looked up again while it waits, or
   * answered by another job, was not bought again by this run.
   */
  damaged: Map<string, number>;
  boughtAgain: number;
}

/**
 * Nothing more is bought: no other job waits on this one. `exactly`: the run knows what it holds
 * (a run of no job, its writes whole, or one of a session's jobs that share its claimant): it gives
 * that back, and a run whose answers settled every claim, in their own transactions, asks nothing
 * of the store. Otherwise everything under its claimant goes (a job's, its killed runs' included).
 */
async function releaseLeft(run: RunContext, exactly: boolean): Promise<void> {
  const { store, account } = run.settings;
  const left = run.claims.unsettled;
  run.claims.dropped(left);
  if (!exactly) await store.releaseAll(run.claimant);
  else if (left.length > 0) await store.release(account, run.claimant, left);
}

/** The answers' side of the run store: lookups, claims, records and releases (KeptAnswers). */
function keptAnswers(run: RunContext): KeptAnswers {
  const { store, account, target } = run.settings;
  return {
    failure: run.writes.failure,
    resolve: (items) => resolveItems(run, items),
    claim: (requests) => claimItems(run, requests),
    record(exchange) {
      // Only what this answer settles: an item it brought no answer for (a 429, a 5xx, a 400 being
      // narrowed down) is sent again, and keeps its claim until then (PROTOCOL.md, rule 5).
      const settles = run.claims.mine(
        exchange.sent.flatMap((item, i) => (exchange.answers?.[i] === undefined ? [] : claimsOf(run.refs.of(exchange.target, item.item)))),
      );
      for (const claim of settles) countBoughtAgain(run, claim.item);
      run.records.add({
        request: requestRecordOf(run.spend, exchange, run.requestTime()),
        windows: exchange.windows,
        answers: keptAnswersOf(exchange, run.refs.of),
        owner: run.claimant,
        settles,
      });
      // No longer this run's once the answer is written: until then another job of the session
      // (sharing its claimant, the store cannot tell) would not see it, and would buy it again.
      run.writes.add(() => {
        run.claims.dropped(settles);
        return Promise.resolve();
      });
    },
    release(items) {
      const claims = run.claims.mine(items.flatMap(({ item, sections }) => claimsOf(run.refs.of(target, item.item), sections)));
      run.claims.dropped(claims);
      run.writes.add(() => store.release(account, run.claimant, claims));
    },
    written: () => run.writes.done,
    flush: () => run.writes.flush(),
  };
}

/** An item's answer is in: what a lookup found damaged of it was bought again. */
function countBoughtAgain(run: RunContext, item: string): void {
  const damaged = run.damaged.get(item);
  if (damaged === undefined) return;
  run.boughtAgain += damaged;
  run.damaged.delete(item);
}

/** Items in answers handed over and not written yet are looked up or claimed once they are. */
async function written(run: RunContext, refs: readonly ItemRef[]): Promise<void> {
  if (run.records.holds(refs.map((ref) => ref.item))) await run.writes.done;
}

/** The list price of the billable sections a kept set answers instead of the service (204s are free). */
function savingOf(run: RunContext, bodies: readonly unknown[], at: readonly number[]): Saving {
  const saving = { sections: 0, usd: 0 };
  bodies.forEach((body, i) => {
    if ((body as { api_code?: unknown } | undefined)?.api_code !== 0) return;
    saving.sections += 1;
    saving.usd += run.settings.prices[run.members[at[i]!]!] ?? 0;
  });
  return saving;
}

/** An item whose every section is kept: its chunk as the service sent it, and what that saved. */
function keptWhole(run: RunContext, item: FoundItem): Resolution {
  const { members } = run;
  const bodies = item.sections.map((section) => section!.body);
  const saving = savingOf(
    run,
    bodies,
    members.map((_, s) => s),
  );
  return { kind: 'kept', chunk: joinChunk(item.frame!, members, bodies, undefined), saving };
}

/**
 * The items' kept sections, what they lack (`wanted`: their claims), and whether another job sends
 * each of those now (`inStore`): then the item waits for that job's answer. Many items: the claims
 * are read only of what they lack (a rerun's kept blocks read none). One item (a one-item call): of
 * all its sections, read with its lookup at once, one round trip to the store instead of two.
 */
async function lookUp(run: RunContext, refs: readonly ItemRef[]) {
  const { store, account } = run.settings;
  const one = refs.length === 1 ? claimsOf(refs[0]!) : undefined;
  const [found, heldOfOne] = await Promise.all([store.find(account, refs, run.freshness), one && store.held(account, run.claimant, one)]);
  const lacking = found.map(lackingOf);
  const wanted = refs.flatMap((ref, i) => claimsOf(ref, lacking[i]));
  if (heldOfOne) return { found, lacking, wanted, inStore: lacking[0]!.map((s) => heldOfOne[s]!) };
  const inStore = wanted.length > 0 ? await store.held(account, run.claimant, wanted) : [];
  return { found, lacking, wanted, inStore };
}

/**
 * Whether the run claims its item as it looks it up: one item sent at once (RunStoreJob.oneItem,
 * so that the claim is still made as the item is sent: PROTOCOL.md, rule 4), on a store that can
 * (Store.claimItem), by a run of no job (a job is named by its output before its first claim).
 */
const claimsAsItLooks = (store: Store, job: RunStoreJob): boolean =>
  job.oneItem === true && store.claimItem !== undefined && job.job === undefined;

/** A run still to enter the store's runs (`entering`) enters now: it looks up or claims otherwise than lookUpClaiming. */
async function enterNow(run: RunContext): Promise<void> {
  const id = run.entering;
  if (id === undefined) return;
  const since = await enterRun(run.settings.store, run.settings.account, id);
  run.freshness = { ...run.freshness, since };
  delete run.entering;
}

/**
 * lookUp for one item that is claimed as it is looked up (claimsAsItLooks): what it lacks is now
 * the run's, unless another job sends a section of it now (then it waits, holding nothing). An item
 * another job of the session holds is looked up only.
 */
async function lookUpClaiming(run: RunContext, ref: ItemRef) {
  const { store, account } = run.settings;
  const all = claimsOf(ref);
  if (!run.claims.reserve(all)) {
    await enterNow(run);
    return lookUp(run, [ref]);
  }
  const claim = (enter?: { run: string; left: readonly string[] }) =>
    store.claimItem!(account, run.claimant, ref, run.freshness, CLAIMS.leaseMs, enter ? { enter } : {});
  const id = run.entering;
  let claimed: ItemClaim;
  try {
    claimed = id === undefined ? await claim() : await withLeft(store, (left) => claim({ run: id, left }));
  } finally {
    run.claims.dropped(all);
  }
  const { found, outcomes, entered } = claimed;
  if (id !== undefined) {
    // What is fresh from now on, as enterRun would have said (rule 1).
    run.freshness = { ...run.freshness, since: entered! };
    delete run.entering;
  }
  const taken = outcomes.includes('held') ? [] : all.filter((_, s) => takes(outcomes[s]!));
  run.claims.reserve(taken);
  run.claims.taken(taken);
  run.tookOver.lapsed += outcomes.filter((outcome, s) => outcome === 'took over' && taken.includes(all[s]!)).length;
  const lacking = lackingOf(found);
  return { found: [found], lacking: [lacking], wanted: claimsOf(ref, lacking), inStore: lacking.map((s) => outcomes[s] === 'held') };
}

/**
 * Each item as the store has it: kept whole, to buy what it lacks, or to wait while another job
 * buys that. Only an item with something to buy has its ref remembered: it is claimed, recorded
 * and released by it later.
 */
async function resolveItems(run: RunContext, items: readonly SendableItem[]): Promise<Resolution[]> {
  const { target } = run.settings;
  const refs = items.map((item) => run.refs.find(target, item.item));
  await written(run, refs);
  const one = claimsAsItLooks(run.settings.store, run.settings) && refs.length === 1;
  if (!one) await enterNow(run);
  const { found, lacking, wanted, inStore } = one ? await lookUpClaiming(run, refs[0]!) : await lookUp(run, refs);
  found.forEach((item, i) => {
    if (item.damaged > 0) run.damaged.set(refs[i]!.item, item.damaged);
    if (lacking[i]!.length > 0) run.refs.keep(target, items[i]!.item, refs[i]!);
  });
  const held = inStore.map((other, w) => other || run.claims.heldByAnother(wanted[w]!));
  let next = 0;
  return found.map((item, i): Resolution => {
    if (lacking[i]!.length === 0) return keptWhole(run, item);
    const keptAt = item.sections.flatMap((section, s) => (section === undefined ? [] : [s]));
    const bodies = keptAt.map((s) => item.sections[s]!.body);
    const purchase: Purchase = {
      kind: 'buy',
      sections: lacking[i]!,
      kept: Object.fromEntries(keptAt.map((s, k) => [run.members[s]!, bodies[k]])),
      saving: savingOf(run, bodies, keptAt),
    };
    const waits = held.slice(next, (next += lacking[i]!.length)).some(Boolean);
    return waits ? { kind: 'wait', purchase } : purchase;
  });
}

/** Which of these items' sections are now this run's to buy (forced ones after a wait that outlasted its limit). */
async function claimItems(run: RunContext, requests: Parameters<KeptAnswers['claim']>[0]): Promise<boolean[]> {
  const claimed = requests.map(() => false);
  await enterNow(run);
  // The output is open by the first claim: the job is named by its file too (a continuing run may reach it by another path).
  const { job } = run;
  if (job) await (run.renamed ??= job.identity.names().then((names) => nameJob(run.settings.store, run.settings.account, job, names)));
  for (const force of [false, true]) {
    const asked = requests.flatMap((request, i) => (Boolean(request.force) === force ? [i] : []));
    if (asked.length === 0) continue;
    const refs = asked.map((i) => run.refs.of(run.settings.target, requests[i]!.item.item));
    await written(run, refs);
    // An item another job of the session is buying waits for its answer, as for another process's.
    const wanted = asked.map((i, k) => claimsOf(refs[k]!, requests[i]!.sections));
    // What the run claimed as it looked the item up (lookUpClaiming) is its own already.
    asked.forEach((i, k) => (claimed[i] = !force && run.claims.holds(wanted[k]!)));
    const free = asked.flatMap((i, k) => (!claimed[i] && run.claims.reserve(wanted[k]!) ? [{ i, wanted: wanted[k]! }] : []));
    if (free.length > 0) await claimFree(run, free, force, claimed);
  }
  return claimed;
}

/** The store asked for the sections of items no other job of the session holds; what it gives is the run's. */
async function claimFree(run: RunContext, free: { i: number; wanted: SectionClaim[] }[], force: boolean, claimed: boolean[]) {
  const { store, account } = run.settings;
  const all = free.flatMap(({ wanted }) => wanted);
  const outcomes = await store.claim(account, run.claimant, all, run.freshness, CLAIMS.leaseMs, { force });
  let next = 0;
  const giveBack: SectionClaim[] = [];
  for (const { i, wanted } of free) {
    const mine = outcomes.slice(next, (next += wanted.length));
    for (const outcome of mine) if (outcome === 'took over') run.tookOver[force ? 'forced' : 'lapsed'] += 1;
    claimed[i] = mine.every(takes);
    if (claimed[i]) {
      run.claims.taken(wanted);
      continue;
    }
    // Part of it is another's now, or kept meanwhile: what this run took goes back, and the item is looked up again.
    giveBack.push(...wanted.filter((_, c) => takes(mine[c]!)));
    run.claims.dropped(wanted);
  }
  if (giveBack.length > 0) run.writes.add(() => store.release(account, run.claimant, giveBack));
}
