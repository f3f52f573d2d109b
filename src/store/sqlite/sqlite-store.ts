import type { Database, Statement, Transaction } from 'better-sqlite3';
import { PropdataError } from '../../errors/index.js';
import type { ReportedWindow } from '../../throttle/rate-headers.js';
import type { SharedPacer } from '../../throttle/shared-pacer.js';
import { freshFrom } from '../freshness.js';
import { nothingFound } from '../kept-text.js';
import type { NameIds } from '../name-ids.js';
import { PacerTable } from '../pacer.js';
import { unreadableTimesNote } from '../readable-time.js';
import type { KeyStore } from '../key-store.js';
import type { ReuseRecord, Usage, UsageQuery } from '../spend.js';
import type {
  ClaimOptions,
  ClaimResult,
  ClearScope,
  FoundItem,
  Freshness,
  ItemRef,
  SectionClaim,
  Store,
  StoreEntry,
  StoreInfo,
  StoreProblems,
} from '../store-api.js';
import type { ClaimTable } from './claims.js';
import { encodeEntry, EntryTables } from './entry-tables.js';
import { JobTable, RunTable } from './jobs.js';
import { SqliteKeyStore } from './keys.js';
import { Maintenance } from './maintenance.js';
import { foundOf, slotsOf, type KeptRows } from './item-lookup.js';
import { LookupThread } from './lookups-off-thread.js';
import type { SectionTable } from './sections.js';
import type { SpendLog } from './spend-log.js';
import { schemaVersion, SCHEMA_VERSION } from './schema.js';
import { newerSchemaFailure } from '../newer-schema.js';
import { STORE_LOOKUPS } from '../../policy/policy.js';
import { isDamage, isSchemaMismatch, isStoreProblem, storeFailure } from './sqlite-failure.js';
import type { WindowMemory } from './window-memory.js';

export interface SqliteStoreSettings {
  path: string;
  busyTimeoutMs: number;
  /** The store's clock: every time it keeps or compares (tests give a fake one). */
  now: () => number;
}

/** Runs `work` now and gives its outcome, a failure included, as a promise: what the interface promises a network database. */
function settled<T>(work: () => T): Promise<T> {
  // The executor runs at once; what it throws rejects the promise.
  return new Promise((resolve) => resolve(work()));
}

/**
 * The store in one local SQLite file (better-sqlite3). Each call is a few statements on a local
 * file, run at once inside one transaction (a read one, or a write one taken before its reads:
 * BEGIN IMMEDIATE); the promise only keeps the interface a network database needs. Every failure
 * of SQLite is one StoreError naming --no-store.
 */
export class SqliteStore implements Store {
  readonly location: string;
  readonly keys: KeyStore;
  readonly #db: Database;
  readonly #busyTimeoutMs: number;
  readonly #now: () => number;
  readonly #tables: EntryTables;
  readonly #accounts: NameIds;
  readonly #sections: SectionTable;
  readonly #claims: ClaimTable;
  readonly #jobs: JobTable;
  readonly #runs: RunTable;
  readonly #spend: SpendLog;
  readonly #windows: WindowMemory;
  readonly #pacer: PacerTable;
  readonly #maintenance: Maintenance;
  readonly #thread: LookupThread;
  /** Items of batch-sized lookups so far (STORE_LOOKUPS.threadAfterItems). */
  #batchItems = 0;
  // Made once: building a transaction function costs more than the statements it wraps.
  readonly #transaction: Transaction<(work: () => unknown) => unknown>;
  readonly #beginRead: Statement;
  readonly #endRead: Statement;
  #damaged = 0;
  #fileDamage: string | undefined;
  readonly #notes: string[] = [];

  constructor(db: Database, { path, busyTimeoutMs, now }: SqliteStoreSettings) {
    this.location = path;
    this.#db = db;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#now = now;
    this.#tables = new EntryTables(db);
    this.#accounts = this.#tables.accounts;
    this.#sections = this.#tables.sections;
    this.#claims = this.#tables.claims;
    this.#jobs = new JobTable(db);
    this.#runs = new RunTable(db);
    this.#spend = this.#tables.spend;
    this.#windows = this.#tables.windows;
    this.#pacer = new PacerTable(db, this.#accounts);
    this.#maintenance = new Maintenance(db, path, this.#accounts);
    this.#thread = new LookupThread({ path, busyTimeoutMs });
    this.#transaction = db.transaction((work: () => unknown) => work());
    this.#beginRead = db.prepare('BEGIN');
    this.#endRead = db.prepare('ROLLBACK');
    this.keys = new SqliteKeyStore(db, this.#accounts, {
      read: (work) => settled(() => this.#reading(work)),
      write: (work) => settled(() => this.#writing(work)),
    });
  }

  /** Runs `work` and maps a failure of SQLite to its one-line error; the caller's own errors pass as they are. */
  #guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      // A rollback may have undone names just numbered.
      this.#tables.forget();
      if (error instanceof PropdataError || !isStoreProblem(error)) throw error;
      // A newer propdata's first run migrated the file under this one's statements (a table or a
      // column they name is gone): say so, rather than SQLite's words for it.
      const found = isSchemaMismatch(error) ? schemaVersion(this.#db) : 0;
      if (found > SCHEMA_VERSION) throw newerSchemaFailure(this.location, found, SCHEMA_VERSION, error);
      throw storeFailure(this.location, error, this.#busyTimeoutMs);
    }
  }

  /**
   * One read transaction: every read sees the same commit. It ends with a rollback, as a read has
   * nothing to commit: a commit would fail again on a damaged page that `find` read around.
   */
  #reading<T>(work: () => T): T {
    return this.#guard(() => {
      this.#beginRead.run();
      try {
        return work();
      } finally {
        if (this.#db.inTransaction) this.#endRead.run();
      }
    });
  }

  /** One write transaction, the lock taken before the first read, so what is read is not changed before the write. */
  #writing<T>(work: () => T): T {
    return this.#guard(() => this.#transaction.immediate(work) as T);
  }

  /**
   * A batch's lookup (STORE_LOOKUPS) is read on the lookup thread once it is ready, and decoded
   * here; a smaller one (a one-item call's), a short batch's, or one the thread could not read, on
   * this connection.
   */
  find(account: string, items: readonly ItemRef[], freshness: Freshness): Promise<FoundItem[]> {
    const from = freshFrom(freshness, this.#now());
    if (!this.#offThread(items.length)) return settled(() => this.#findHere(account, items, from));
    return this.#thread
      .find(account, items, from)
      .then((rows) => (rows ? this.#foundOf(items, rows) : this.#findHere(account, items, from)));
  }

  /** Whether a lookup of this many items goes to the lookup thread: a batch's, once its lookups passed STORE_LOOKUPS.threadAfterItems. */
  #offThread(items: number): boolean {
    if (items < STORE_LOOKUPS.threadFromItems) return false;
    this.#batchItems += items;
    return this.#batchItems > STORE_LOOKUPS.threadAfterItems && this.#thread.ready();
  }

  /** Whether the lookup thread started (false: it could not, or ended first); settled once a batch's lookups started it. */
  get lookupThreadStarted(): Promise<boolean> {
    return this.#thread.started;
  }

  #foundOf(items: readonly ItemRef[], kept: KeptRows): FoundItem[] {
    let at = 0;
    return items.map((ref) => {
      const found = foundOf(ref.sections, kept, at);
      at += slotsOf(ref.sections);
      this.#damaged += found.damaged;
      return found;
    });
  }

  #findHere(account: string, items: readonly ItemRef[], from: number): FoundItem[] {
    return this.#reading(() => {
      const id = this.#accounts.find(account);
      if (id === undefined) return items.map((ref) => nothingFound(ref));
      return items.map((ref) => {
        let found: FoundItem;
        try {
          found = this.#sections.find(id, ref.item, ref.sections, from);
        } catch (error) {
          // A page SQLite cannot read: this item's sections are bought again, the run goes on.
          if (!isDamage(error)) throw error;
          this.#noteFileDamage(error);
          found = nothingFound(ref, ref.sections.length);
        }
        this.#damaged += found.damaged;
        return found;
      });
    });
  }

  claim(
    account: string,
    owner: string,
    sections: readonly SectionClaim[],
    freshness: Freshness,
    leaseMs: number,
    { force = false, graceMs = 0 }: ClaimOptions = {},
  ): Promise<ClaimResult[]> {
    return settled(() =>
      this.#writing(() => {
        const id = this.#accounts.ensure(account);
        const now = this.#now();
        const kept = (section: SectionClaim) => this.#sections.kept(id, section.item, section);
        return this.#claims.claim(id, sections, { owner, now, freshFrom: freshFrom(freshness, now), force, graceMs, leaseMs, kept });
      }),
    );
  }

  renewClaims(owner: string, leaseMs: number): Promise<void> {
    return settled(() => {
      this.#writing(() => this.#claims.renew(owner, leaseMs, this.#now()));
    });
  }

  releaseAll(owner: string): Promise<void> {
    return settled(() => {
      this.#writing(() => this.#claims.releaseAll(owner));
    });
  }

  release(account: string, owner: string, sections: readonly SectionClaim[]): Promise<void> {
    return settled(() => {
      this.#writing(() => {
        const id = this.#accounts.find(account);
        if (id !== undefined) this.#claims.release(id, owner, sections);
      });
    });
  }

  /** A read: it needs no write lock, and one read transaction sees every claim as of one commit. */
  held(account: string, owner: string, sections: readonly SectionClaim[], { graceMs = 0 }: { graceMs?: number } = {}): Promise<boolean[]> {
    return settled(() =>
      this.#reading(() => {
        const id = this.#accounts.find(account);
        return id === undefined ? sections.map(() => false) : this.#claims.held(id, owner, sections, this.#now(), graceMs);
      }),
    );
  }

  record(entry: StoreEntry): Promise<void> {
    return this.recordMany([entry]);
  }

  recordMany(entries: readonly StoreEntry[]): Promise<void> {
    return settled(() => {
      const encoded = entries.map(encodeEntry);
      this.#writing(() => this.#tables.record(encoded, this.#now));
    });
  }

  beginJob(account: string, job: string): Promise<number> {
    return settled(() => this.#writing(() => this.#jobs.begin(this.#accounts.ensure(account), job, this.#now())));
  }

  jobSince(account: string, job: string): Promise<number | undefined> {
    return settled(() =>
      this.#reading(() => {
        const id = this.#accounts.find(account);
        return id === undefined ? undefined : this.#jobs.since(id, job);
      }),
    );
  }

  nameJob(account: string, job: string, since: number): Promise<void> {
    return settled(() => {
      this.#writing(() => this.#jobs.name(this.#accounts.ensure(account), job, since));
    });
  }

  enterRun(account: string, run: string, leaseMs: number, left: readonly string[] = []): Promise<number> {
    return settled(() =>
      this.#writing(() => {
        for (const ended of left) this.#runs.leave(ended);
        return this.#runs.enter(this.#accounts.ensure(account), run, this.#now(), leaseMs);
      }),
    );
  }

  async renewRun(account: string, run: string, leaseMs: number): Promise<void> {
    await this.enterRun(account, run, leaseMs);
  }

  leaveRun(run: string): Promise<void> {
    return settled(() => {
      this.#writing(() => this.#runs.leave(run));
    });
  }

  finishJob(account: string, job: string): Promise<void> {
    return settled(() => {
      this.#writing(() => {
        const id = this.#accounts.find(account);
        if (id !== undefined) this.#jobs.finish(id, job, this.#now());
      });
    });
  }

  recordReuse(reuse: ReuseRecord): Promise<void> {
    return settled(() => {
      this.#writing(() => this.#spend.recordReuse(reuse));
    });
  }

  usage(query: UsageQuery): Promise<Usage> {
    return settled(() => this.#reading(() => this.#spend.usage(query)));
  }

  monthToDateCost(account: string): Promise<number> {
    return settled(() => this.#reading(() => this.#spend.monthToDateCost(account, this.#now())));
  }

  accounts(): Promise<string[]> {
    return settled(() =>
      this.#reading(() =>
        this.#db
          .prepare<[], string>(
            `SELECT name FROM accounts WHERE id IN (
             SELECT account FROM items UNION SELECT account FROM requests UNION SELECT account FROM reused UNION SELECT account FROM windows
           ) ORDER BY name`,
          )
          .pluck()
          .all(),
      ),
    );
  }

  loadWindows(account: string): Promise<ReportedWindow[] | undefined> {
    return settled(() => this.#reading(() => this.#windows.load(account, this.#now())));
  }

  pacer(account: string, owner: string): SharedPacer {
    return this.#pacer.for(account, owner, (work) => this.#guard(work), this.#now);
  }

  info(account?: string): Promise<StoreInfo> {
    return settled(() =>
      this.#reading(() => {
        const { info, unreadableTimes } = this.#maintenance.info(account);
        if (unreadableTimes > 0) this.#notes.push(unreadableTimesNote(unreadableTimes));
        return info;
      }),
    );
  }

  prune(olderThanMs: number): Promise<number> {
    return settled(() => this.#guard(() => this.#maintenance.prune(olderThanMs, this.#now())));
  }

  clear(scope: ClearScope): Promise<number> {
    return settled(() => this.#guard(() => this.#maintenance.clear(scope)));
  }

  problems(): StoreProblems {
    return { damaged: this.#damaged, notes: [...this.#notes] };
  }

  /** Said once per store: the first page found unreadable names the file's damage. */
  #noteFileDamage(error: unknown): void {
    if (this.#fileDamage !== undefined) return;
    this.#fileDamage = error instanceof Error ? error.message : String(error);
    this.#notes.push(
      `the store ${this.location} is damaged (${this.#fileDamage}): what it could not read was bought again; move it aside after this run, or run with --no-store`,
    );
  }

  /**
   * Closing the last connection folds the write-ahead log into the file and removes it. A run
   * that met unreadable sections checks the file first (a damaged page may hold more), so that a
   * damaged store is said, not left for the next run to stumble on.
   */
  async close(): Promise<void> {
    await this.#thread.close();
    return settled(() => {
      try {
        if (this.#damaged > 0 && this.#fileDamage === undefined) {
          const check = this.#db.pragma('quick_check(1)', { simple: true });
          if (check !== 'ok') this.#noteFileDamage(new Error(String(check)));
        }
      } catch (error) {
        if (!isStoreProblem(error)) throw error;
        this.#noteFileDamage(error);
      } finally {
        this.#db.close();
      }
    });
  }
}
