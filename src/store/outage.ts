import { StoreError } from '../errors/index.js';
import type { Clock } from '../throttle/clock.js';
import type { SharedPacer } from '../throttle/shared-pacer.js';
import { foldPending, writePending } from './pending.js';
import type { Store, StoreEntry, StoreProblems } from './store-api.js';
import { CLAIMS, STORE_WAITS } from '../policy/policy.js';

export interface OutageSettings {
  /** This machine's journal of the store (store-path.ts, journalDirFor): answers it could not take yet. */
  journal: string;
  /** How long a run waits for a store that stopped answering before it stops (--store-wait). */
  waitMs: number;
  clock: Clock;
  /** Told once as the store stops answering, and once as it answers again. */
  events?: OutageEvents;
}

export interface OutageEvents {
  lost?(reason: StoreError, waitMs: number): void;
  back?(afterMs: number, journaled: number): void;
}

const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

const isOutage = (error: unknown): error is StoreError => error instanceof StoreError && error.outage;

/**
 * A store that rides out an outage (a database restarting, failing over, cut off for a while): a
 * call that finds it unreachable waits and tries again, with backoff, for up to `waitMs`; sending,
 * which waits for the store's lookups, claims and pacer, pauses meanwhile, and the run goes on
 * once the store answers. What is answered meanwhile is kept in this machine's journal at once
 * (record), so neither a kill nor the end of the wait loses it: the store takes it as it comes back,
 * or at its next opening by any run, with or without --resume. Claims are neither renewed nor
 * released while it is away (they lapse by themselves). A failure that is not an outage, or an
 * outage longer than `waitMs`, is the run's stop, as before.
 */
export class OutageTolerantStore implements Store {
  readonly location: string;
  /** A gateway's client keys: not a run's business, passed through as they are. */
  readonly keys: Store['keys'];
  readonly #store: Store;
  readonly #settings: OutageSettings;
  /** When the store stopped answering, why, and how many journaled entries it has taken since; undefined while it answers. */
  #outage: { since: number; reason: StoreError; applied: number } | undefined;
  /**
   * Back from an outage: until `until`, another's claim that lapsed since `from` (when the store was
   * lost) still stands; its owner may have lost the store too, and is given a lease from the
   * store's return to renew it (PROTOCOL.md, rule 3). Undefined: no outage met, or its lease is over.
   */
  #grace: { from: number; until: number } | undefined;
  /** The renewals skipped while the store was away, made first thing once it is back. */
  readonly #renewals = new Map<string, () => Promise<void>>();
  /** An attempt at applying the journal, shared by every call waiting for the store. */
  #folding: Promise<void> | undefined;
  #journaled = 0;
  readonly #notes: string[] = [];

  constructor(store: Store, settings: OutageSettings) {
    this.location = store.location;
    this.keys = store.keys;
    this.#store = store;
    this.#settings = settings;
  }

  /** `work` on the store; through an outage, tried again until it answers or the wait is over. */
  async #call<T>(work: () => Promise<T>): Promise<T> {
    for (let delay: number = STORE_WAITS.outageFirstDelayMs; ; delay = Math.min(delay * 2, STORE_WAITS.outageMaxDelayMs)) {
      const sent = this.#settings.clock.now();
      try {
        // Back from an outage, the journal goes in first (nothing is read that it would change), then
        // the claims this run holds are renewed, before it reads anyone else's.
        if (this.#outage) await this.#foldJournal();
        if (this.#outage) await this.#renewSkipped();
        const result = await work();
        if (this.#outage) this.#recovered();
        return result;
      } catch (error) {
        if (!isOutage(error)) throw error;
        this.#lost(error, sent);
      }
      const { since, reason } = this.#outage!;
      const { clock, waitMs } = this.#settings;
      const left = since + waitMs - clock.now();
      if (left <= 0) throw this.#gaveUp(reason);
      await clock.sleep(Math.min(delay, left));
    }
  }

  /**
   * The store failed a call sent at `sent`: it has been away since then at least (a frozen database
   * fails a call only once its timeout is out, STORE_WAITS.queryTimeoutMs after it was sent).
   */
  #lost(reason: StoreError, sent: number): void {
    if (this.#outage) {
      this.#outage.since = Math.min(this.#outage.since, sent);
      return;
    }
    this.#outage = { since: sent, reason, applied: 0 };
    this.#settings.events?.lost?.(reason, this.#settings.waitMs);
  }

  /** The renewals skipped while the store was away, made once (each the latest of its kind). */
  async #renewSkipped(): Promise<void> {
    for (const [key, renew] of this.#renewals) {
      await renew();
      this.#renewals.delete(key);
    }
  }

  /** A claim's options with the grace of a return from an outage (the first call that finds it back included), while it lasts. */
  #withGrace<T extends { graceMs?: number }>(options: T | undefined): T | undefined {
    const now = this.#settings.clock.now();
    const from = this.#outage?.since ?? (this.#grace !== undefined && now < this.#grace.until ? this.#grace.from : undefined);
    if (from === undefined) return options;
    return { ...options, graceMs: Math.max(options?.graceMs ?? 0, now - from) } as T;
  }

  /** Applies this machine's journal, one attempt at a time however many calls wait: it fails as any call does while the store is away. */
  #foldJournal(): Promise<void> {
    this.#folding ??= foldPending(this.#store, this.#settings.journal)
      .then((applied) => {
        if (this.#outage) this.#outage.applied += applied;
      })
      .finally(() => (this.#folding = undefined));
    return this.#folding;
  }

  #recovered(): void {
    const { since, applied } = this.#outage!;
    this.#outage = undefined;
    const now = this.#settings.clock.now();
    this.#grace = { from: Math.min(since, this.#grace?.from ?? since), until: now + CLAIMS.leaseMs };
    const afterMs = now - since;
    this.#notes.push(
      `the store ${this.location} was out of reach for ${Math.ceil(afterMs / 1000)} s; sending paused meanwhile` +
        (applied > 0 ? `, and the ${requests(applied)} answered meanwhile, kept on this machine, were stored` : ''),
    );
    this.#settings.events?.back?.(afterMs, applied);
  }

  #gaveUp(reason: StoreError): StoreError {
    const seconds = Math.round(this.#settings.waitMs / 1000);
    const why = `${reason.reason}, for ${seconds} s (--store-wait); what was answered meanwhile is kept on this machine, and the next run stores it`;
    return new StoreError(`cannot use the store ${this.location}: ${why}; or run with --no-store`, reason.cause, {
      outage: true,
      reason: why,
    });
  }

  /** Keeps an entry in the journal, for the store to take when it is back. */
  #journal(entry: StoreEntry): void {
    writePending(this.#settings.journal, entry);
    this.#journaled += 1;
  }

  /**
   * Something that may wait for the store's return or lapse by itself: skipped while it is away. A
   * renewal (`renewal`: what it renews) skipped so is made as the store comes back.
   */
  async #unlessAway(work: () => Promise<void>, renewal?: string): Promise<void> {
    if (renewal !== undefined) this.#renewals.delete(renewal);
    const keep = () => {
      if (renewal !== undefined) this.#renewals.set(renewal, work);
    };
    if (this.#outage) {
      keep();
      return;
    }
    const sent = this.#settings.clock.now();
    try {
      await work();
    } catch (error) {
      if (!isOutage(error)) throw error;
      keep();
      this.#lost(error, sent);
    }
  }

  record(entry: StoreEntry): Promise<void> {
    return this.#keep([entry], () => this.#store.record(entry));
  }

  recordMany(entries: readonly StoreEntry[]): Promise<void> {
    return this.#keep(entries, () => this.#store.recordMany(entries));
  }

  /** Entries written by `write`, or kept in the journal while the store is away. */
  async #keep(entries: readonly StoreEntry[], write: () => Promise<void>): Promise<void> {
    if (this.#outage) {
      for (const entry of entries) this.#journal(entry);
      return;
    }
    const sent = this.#settings.clock.now();
    try {
      await write();
    } catch (error) {
      if (!isOutage(error)) throw error;
      // Committed or not, they are kept: applied again, an entry changes nothing (Store.record).
      for (const entry of entries) this.#journal(entry);
      this.#lost(error, sent);
    }
  }

  find: Store['find'] = (...args) => this.#call(() => this.#store.find(...args));
  claim: Store['claim'] = (account, owner, sections, freshness, leaseMs, options) =>
    this.#call(() => this.#store.claim(account, owner, sections, freshness, leaseMs, this.#withGrace(options)));
  held: Store['held'] = (account, owner, sections, options) =>
    this.#call(() => this.#store.held(account, owner, sections, this.#withGrace(options)));
  /** Only where the store has it (Store.claimItem). */
  get claimItem(): Store['claimItem'] {
    const store = this.#store;
    if (!store.claimItem) return undefined;
    return (account, owner, item, freshness, leaseMs, options) =>
      this.#call(() => store.claimItem!(account, owner, item, freshness, leaseMs, this.#withGrace(options)));
  }
  renewClaims: Store['renewClaims'] = (owner, leaseMs) =>
    this.#unlessAway(() => this.#store.renewClaims(owner, leaseMs), `claims ${owner}`);
  releaseAll: Store['releaseAll'] = (...args) => this.#unlessAway(() => this.#store.releaseAll(...args));
  release: Store['release'] = (...args) => this.#unlessAway(() => this.#store.release(...args));
  enterRun: Store['enterRun'] = (...args) => this.#call(() => this.#store.enterRun(...args));
  /** The heartbeat's renewal of a run's entry: skipped while the store is away, made as it comes back. */
  renewRun: Store['renewRun'] = (account, run, leaseMs) =>
    this.#unlessAway(() => this.#store.renewRun(account, run, leaseMs), `run ${run}`);
  leaveRun: Store['leaveRun'] = (...args) => this.#unlessAway(() => this.#store.leaveRun(...args));
  beginJob: Store['beginJob'] = (...args) => this.#call(() => this.#store.beginJob(...args));
  nameJob: Store['nameJob'] = (...args) => this.#call(() => this.#store.nameJob(...args));
  finishJob: Store['finishJob'] = (...args) => this.#call(() => this.#store.finishJob(...args));
  jobSince: Store['jobSince'] = (...args) => this.#call(() => this.#store.jobSince(...args));
  recordReuse: Store['recordReuse'] = (...args) => this.#call(() => this.#store.recordReuse(...args));
  usage: Store['usage'] = (...args) => this.#call(() => this.#store.usage(...args));
  monthToDateCost: Store['monthToDateCost'] = (...args) => this.#call(() => this.#store.monthToDateCost(...args));
  accounts: Store['accounts'] = () => this.#call(() => this.#store.accounts());
  loadWindows: Store['loadWindows'] = (...args) => this.#call(() => this.#store.loadWindows(...args));
  info: Store['info'] = (...args) => this.#call(() => this.#store.info(...args));
  prune: Store['prune'] = (...args) => this.#call(() => this.#store.prune(...args));
  clear: Store['clear'] = (...args) => this.#call(() => this.#store.clear(...args));

  /** The shared pacer, each of its calls riding out an outage as the store's do: grants wait while it is away. */
  pacer(account: string, owner: string): SharedPacer {
    const pacer = this.#store.pacer(account, owner);
    return {
      join: () => this.#call(() => pacer.join()),
      reserve: (request) => this.#call(() => pacer.reserve(request)),
      report: (reservation, reported) => this.#call(() => pacer.report(reservation, reported)),
      refund: (reservation) => this.#call(() => pacer.refund(reservation)),
      endLease: (reservation, components) => this.#call(() => pacer.endLease(reservation, components)),
      leave: () => this.#unlessAway(() => pacer.leave()),
    };
  }

  problems(): StoreProblems {
    const problems = this.#store.problems();
    const away =
      this.#outage && this.#journaled > 0
        ? [
            `${requests(this.#journaled)} answered are kept on this machine (${this.#settings.journal}) until the store ${this.location} takes them: the next run stores them`,
          ]
        : [];
    return { ...problems, notes: [...problems.notes, ...this.#notes, ...away] };
  }

  /** A store back by now takes the journal before it closes; one still away leaves it for the next run. */
  async close(): Promise<void> {
    if (this.#outage) await this.#foldJournal().catch(() => undefined);
    await this.#store.close();
  }
}
