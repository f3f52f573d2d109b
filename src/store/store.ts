import type { Database, Transaction } from 'better-sqlite3';
import { PropdataError } from '../errors/index.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { SharedPacer } from '../throttle/shared-pacer.js';
import { AnswerTable, type Answers } from './answers.js';
import { Maintenance, type ClearScope, type StoreInfo } from './maintenance.js';
import { NameIds } from './name-ids.js';
import { PacerTable } from './pacer.js';
import { SpendLog, type RequestRecord, type ReuseRecord, type Usage, type UsageQuery } from './spend.js';
import { isStoreProblem, storeFailure } from './store-failure.js';
import { WindowMemory } from './windows.js';

/**
 * propdata's memory across runs, in one SQLite file: answers, spend and rate limits, each kept per
 * account. Synchronous, as better-sqlite3 is: each call is a few statements on a local file, faster
 * than the await it would take. Every failure of the store is one StoreError naming --no-store.
 */
export class Store {
  readonly path: string;
  readonly #db: Database;
  readonly #busyTimeoutMs: number;
  readonly #ids: NameIds[];
  readonly #answers: AnswerTable;
  readonly #spend: SpendLog;
  readonly #windows: WindowMemory;
  readonly #pacer: PacerTable;
  readonly #maintenance: Maintenance;
  readonly #transaction: Transaction<(work: () => unknown) => unknown>;

  constructor(db: Database, path: string, busyTimeoutMs: number) {
    this.path = path;
    this.#db = db;
    this.#busyTimeoutMs = busyTimeoutMs;
    const accounts = new NameIds(db, 'accounts');
    const endpoints = new NameIds(db, 'endpoints');
    this.#ids = [accounts, endpoints];
    this.#answers = new AnswerTable(db, accounts, endpoints);
    this.#spend = new SpendLog(db, accounts);
    this.#windows = new WindowMemory(db, accounts);
    this.#pacer = new PacerTable(db, accounts);
    this.#maintenance = new Maintenance(db, path, accounts);
    this.#transaction = db.transaction((work: () => unknown) => work());
  }

  /** Runs `work` and maps a failure of the store to its one-line error; the caller's own errors pass as they are. */
  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      // A rollback may have undone names just numbered.
      for (const ids of this.#ids) ids.forget();
      if (error instanceof PropdataError || !isStoreProblem(error)) throw error;
      throw storeFailure(this.path, error, this.#busyTimeoutMs);
    }
  }

  /** One account's answers. */
  answers(account: string): Answers {
    const answers = this.#answers.for(account);
    return {
      get: (...args) => this.#guard(() => answers.get(...args)),
      put: (...args) => this.#guard(() => answers.put(...args)),
    };
  }

  /**
   * Runs `work` in one write transaction: the answers of a response and its request record are
   * committed together (one disk sync, not one per item) or, if `work` throws, not at all.
   */
  transaction<T>(work: () => T): T {
    return this.#guard(() => this.#transaction.immediate(work) as T);
  }

  recordRequest(request: RequestRecord): void {
    this.#guard(() => this.#spend.recordRequest(request));
  }

  hasRequest(request: RequestRecord): boolean {
    return this.#guard(() => this.#spend.hasRequest(request));
  }

  recordFromStore(reuse: ReuseRecord): void {
    this.#guard(() => this.#spend.recordFromStore(reuse));
  }

  usage(query: UsageQuery): Usage {
    return this.#guard(() => this.#spend.usage(query));
  }

  /** USD at list price billed to the account in the UTC month holding `now` (for --max-cost-month). */
  monthToDateCost(account: string, now: number): number {
    return this.#guard(() => this.#spend.monthToDateCost(account, now));
  }

  saveWindows(account: string, windows: readonly ReportedWindow[], at: number): void {
    this.#guard(() => this.#windows.save(account, windows, at));
  }

  /** The windows last reported for the account as they stand at `now`, if fresh (WINDOWS_FRESH_MS); else undefined. */
  loadWindows(account: string, now: number): ReportedWindow[] | undefined {
    return this.#guard(() => this.#windows.load(account, now));
  }

  /** The pacer this process (`owner`) shares with the account's other runs on this machine, on the clock `now` (the run's). */
  pacer(account: string, owner: string, now: () => number): SharedPacer {
    return this.#pacer.for(account, owner, (work) => this.#guard(work), now);
  }

  info(): StoreInfo {
    return this.#guard(() => this.#maintenance.info());
  }

  /** Removes answers that arrived `olderThanMs` or more before `now`; returns how many. */
  prune(olderThanMs: number, now: number): number {
    return this.#guard(() => this.#maintenance.prune(olderThanMs, now));
  }

  /** Removes the answers and remembered limits of one account or of all; spend records stay. Returns how many answers. */
  clear(scope: ClearScope): number {
    return this.#guard(() => this.#maintenance.clear(scope));
  }

  /** The file's size on disk, log included. */
  bytes(): number {
    return this.#maintenance.bytes();
  }

  /** Closing the last connection folds the write-ahead log into the file and removes it. */
  close(): void {
    this.#db.close();
  }
}
