import type { ReportedWindow } from '../../throttle/rate-headers.js';
import type { SharedPacer } from '../../throttle/shared-pacer.js';
import type { KeyStore } from '../key-store.js';
import type { ReuseRecord, Usage, UsageQuery } from '../spend.js';
import { unreadableTimesNote } from '../readable-time.js';
import type {
  ClaimOptions,
  ClaimResult,
  ClearScope,
  FoundItem,
  Freshness,
  ItemClaim,
  ItemClaimOptions,
  ItemRef,
  SectionClaim,
  Store,
  StoreEntry,
  StoreInfo,
  StoreProblems,
} from '../store-api.js';
import { freshFrom } from '../freshness.js';
import { windowsAsOf } from '../windows.js';
import { ClaimTable } from './claims.js';
import type { DatabaseClock } from './database-clock.js';
import type { Database } from './database.js';
import { PostgresKeyStore } from './keys.js';
import { Maintenance } from './maintenance.js';
import { postgresPacer, type PacerTableSettings } from './postgres-pacer.js';
import { findItems, recordEntries, type DatabaseEntry } from './sections.js';
import { SpendLog } from './spend-log.js';

export interface PostgresStoreSettings {
  db: Database;
  /** The URL without its password. */
  location: string;
  /** The store's schema: its name, quoted as an identifier (`s`), and as a string literal. */
  schema: string;
  s: string;
  schemaLiteral: string;
  clock: DatabaseClock;
}

/**
 * The store in a PostgreSQL database (node-postgres), shared by every machine that names it: the
 * same contract as the SQLite file, each method one statement (one round trip, one transaction)
 * but for a claim's two round trips (the locks and the read; the write and COMMIT), a group's write
 * of several answers (four: BEGIN, two statements, COMMIT; one request's of one answer or none is one) and the
 * pacer's two when another session wrote its state since this one (else one). A one-item library
 * call on a new item makes two round trips: its claim (claimItem: the locks, its run's entry with
 * the leave of the run before it, and the read that is its lookup and claims what it finds empty,
 * committed), and its record; its pacer asks once every 32 calls where the windows are wide (a
 * lease, throttle/shared-pacing.ts), and once a call otherwise, with its report beside the record.
 * Everything it times is on the database's clock; what it exchanges with the
 * run in the run's time (the windows, the pacer's) is converted (DatabaseClock). Every failure of
 * the database is one StoreError naming --no-store (Database).
 */
export class PostgresStore implements Store {
  readonly location: string;
  readonly keys: KeyStore;
  readonly #db: Database;
  readonly #s: string;
  readonly #clock: DatabaseClock;
  readonly #claims: ClaimTable;
  readonly #spend: SpendLog;
  readonly #maintenance: Maintenance;
  readonly #pacer: PacerTableSettings;
  /** Account ids by name: rows are never deleted, so an id found stays right on every machine. */
  readonly #accountIds = new Map<string, number>();
  #damaged = 0;
  /** What `info` found that the user should know (answers with an unreadable time). */
  readonly #notes: string[] = [];

  constructor({ db, location, schema, s, schemaLiteral, clock }: PostgresStoreSettings) {
    this.location = location;
    this.#db = db;
    this.#s = s;
    this.#clock = clock;
    this.#claims = new ClaimTable(db, s);
    this.#spend = new SpendLog(db, s);
    this.#maintenance = new Maintenance(db, { s, schema, location });
    this.#pacer = { db, s, schemaLiteral, clock };
    this.keys = new PostgresKeyStore(db, s, (name) => this.#accountId(name));
  }

  /** The account's id, added if new. */
  async #accountId(name: string): Promise<number> {
    const cached = this.#accountIds.get(name);
    if (cached !== undefined) return cached;
    const s = this.#s;
    const [row] = await this.#db.query<{ id: number }>(
      `WITH added AS (INSERT INTO ${s}.accounts (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id)
       SELECT id FROM added UNION ALL SELECT id FROM ${s}.accounts WHERE name = $1`,
      [name],
    );
    // Added by another job in the very same moment, after this statement's snapshot: it is there now.
    const id = row?.id ?? (await this.#db.query<{ id: number }>(`SELECT id FROM ${s}.accounts WHERE name = $1`, [name]))[0]!.id;
    this.#accountIds.set(name, id);
    return id;
  }

  async find(account: string, items: readonly ItemRef[], freshness: Freshness): Promise<FoundItem[]> {
    // The database's now as this run sees it (DatabaseClock: within half a round trip), for the one rule of freshness.
    const now = this.#clock.toDatabase(this.#clock.runNow());
    const found = await findItems(this.#db, this.#s, account, items, freshFrom(freshness, now));
    for (const item of found) this.#damaged += item.damaged;
    return found;
  }

  async claim(
    account: string,
    owner: string,
    sections: readonly SectionClaim[],
    freshness: Freshness,
    leaseMs: number,
    options: ClaimOptions = {},
  ): Promise<ClaimResult[]> {
    if (sections.length === 0) return [];
    return this.#claims.claim(await this.#accountId(account), owner, sections, freshness, { leaseMs, ...options });
  }

  async claimItem(
    account: string,
    owner: string,
    item: ItemRef,
    freshness: Freshness,
    leaseMs: number,
    { graceMs = 0, enter }: ItemClaimOptions = {},
  ): Promise<ItemClaim> {
    const claimed = await this.#claims.claimItem(await this.#accountId(account), owner, item, freshness, {
      leaseMs,
      graceMs,
      ...(enter ? { enter } : {}),
    });
    this.#damaged += claimed.found.damaged;
    return claimed;
  }

  renewClaims(owner: string, leaseMs: number): Promise<void> {
    return this.#claims.renew(owner, leaseMs);
  }

  releaseAll(owner: string): Promise<void> {
    return this.#claims.releaseAll(owner);
  }

  async release(account: string, owner: string, sections: readonly SectionClaim[]): Promise<void> {
    if (sections.length > 0) await this.#claims.release(account, owner, sections);
  }

  async held(
    account: string,
    owner: string,
    sections: readonly SectionClaim[],
    { graceMs = 0 }: { graceMs?: number } = {},
  ): Promise<boolean[]> {
    return sections.length === 0 ? [] : this.#claims.held(account, owner, sections, graceMs);
  }

  record(entry: StoreEntry): Promise<void> {
    return this.recordMany([entry]);
  }

  async recordMany(entries: readonly StoreEntry[]): Promise<void> {
    const { toDatabase, resetToDatabase } = this.#clock;
    const written: DatabaseEntry[] = [];
    for (const entry of entries) {
      written.push({
        accountId: await this.#accountId(entry.request.account),
        entry,
        arrivedAt: entry.arrivedAt === undefined ? undefined : toDatabase(entry.arrivedAt),
        windows: entry.windows.map((window) => ({ ...window, resetAt: resetToDatabase(window.resetAt) })),
      });
    }
    await recordEntries(this.#db, this.#s, written);
  }

  async beginJob(account: string, job: string): Promise<number> {
    const s = this.#s;
    const accountId = await this.#accountId(account);
    // A job never begun, or completed, begins now; an unfinished one keeps its start. No two jobs of
    // an account begin at the same millisecond (a new one a millisecond after the latest, under the
    // account's lock): a job's claims are owned by its command and its start, and two machines
    // starting the same command on one input at once would otherwise take each other's claims for
    // their own, and both buy.
    return this.#db.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1), $2)', [`propdata job starts ${s}`, accountId]);
      const { rows } = await client.query<{ started: number }>(
        `INSERT INTO ${s}.jobs AS j (account, job, started, finished)
         VALUES ($1, $2, GREATEST(${s}.now_ms(), (SELECT COALESCE(max(started) + 1, 0) FROM ${s}.jobs WHERE account = $1)), NULL)
         ON CONFLICT (account, job) DO UPDATE SET started = CASE WHEN j.finished IS NULL THEN j.started ELSE excluded.started END, finished = NULL
         RETURNING started`,
        [accountId, job],
      );
      return rows[0]!.started;
    });
  }

  async jobSince(account: string, job: string): Promise<number | undefined> {
    const s = this.#s;
    const [row] = await this.#db.query<{ started: number }>(
      `SELECT started FROM ${s}.jobs WHERE account = (SELECT id FROM ${s}.accounts WHERE name = $1) AND job = $2 AND finished IS NULL`,
      [account, job],
    );
    return row?.started;
  }

  async nameJob(account: string, job: string, since: number): Promise<void> {
    const s = this.#s;
    await this.#db.query(
      `INSERT INTO ${s}.jobs AS j (account, job, started, finished) VALUES ($1, $2, $3, NULL)
       ON CONFLICT (account, job) DO UPDATE SET started = excluded.started, finished = NULL WHERE j.finished IS NOT NULL`,
      [await this.#accountId(account), job, since],
    );
  }

  /**
   * Registers or renews `run`, removes the runs `left`, and reads the earliest start among its
   * account's runs, in one statement (the schema's enter_run: claim-functions.ts).
   */
  async enterRun(account: string, run: string, leaseMs: number, left: readonly string[] = []): Promise<number> {
    const accountId = await this.#accountId(account);
    const [row] = await this.#db.query<{ earliest: number }>(`SELECT ${this.#s}.enter_run($1, $2, $3, $4) AS earliest`, [
      accountId,
      run,
      leaseMs,
      left,
    ]);
    return row!.earliest;
  }

  async renewRun(account: string, run: string, leaseMs: number): Promise<void> {
    await this.enterRun(account, run, leaseMs);
  }

  async leaveRun(run: string): Promise<void> {
    await this.#db.query(`DELETE FROM ${this.#s}.runs WHERE run = $1`, [run]);
  }

  async finishJob(account: string, job: string): Promise<void> {
    const s = this.#s;
    await this.#db.query(
      `UPDATE ${s}.jobs SET finished = ${s}.now_ms()
       WHERE account = (SELECT id FROM ${s}.accounts WHERE name = $1) AND job = $2 AND finished IS NULL`,
      [account, job],
    );
  }

  async recordReuse(reuse: ReuseRecord): Promise<void> {
    await this.#spend.recordReuse(await this.#accountId(reuse.account), reuse);
  }

  usage(query: UsageQuery): Promise<Usage> {
    return this.#spend.usage(query);
  }

  monthToDateCost(account: string): Promise<number> {
    return this.#spend.monthToDateCost(account);
  }

  async accounts(): Promise<string[]> {
    const s = this.#s;
    const rows = await this.#db.query<{ name: string }>(
      `SELECT name FROM ${s}.accounts WHERE id IN (
         SELECT account FROM ${s}.items UNION SELECT account FROM ${s}.requests UNION SELECT account FROM ${s}.reused
         UNION SELECT account FROM ${s}.windows
       ) ORDER BY name COLLATE "C"`,
    );
    return rows.map((row) => row.name);
  }

  /** The windows last reported, as they stand at the database's now, their resets in the run's time. */
  async loadWindows(account: string): Promise<ReportedWindow[] | undefined> {
    const s = this.#s;
    const [row] = await this.#db.query<{ at: number; windows: string; now: number }>(
      `SELECT at, windows, ${s}.now_ms() AS now FROM ${s}.windows WHERE account = (SELECT id FROM ${s}.accounts WHERE name = $1)`,
      [account],
    );
    const windows = row && windowsAsOf(JSON.parse(row.windows) as ReportedWindow[], row.at, row.now);
    return windows?.map((window) => ({ ...window, resetAt: this.#clock.toRun(window.resetAt) }));
  }

  pacer(account: string, owner: string): SharedPacer {
    return postgresPacer(this.#pacer, () => this.#accountId(account), owner);
  }

  async info(account?: string): Promise<StoreInfo> {
    const { info, unreadableTimes } = await this.#maintenance.info(account);
    if (unreadableTimes > 0) this.#notes.push(unreadableTimesNote(unreadableTimes));
    return info;
  }

  prune(olderThanMs: number): Promise<number> {
    return this.#maintenance.prune(olderThanMs);
  }

  clear(scope: ClearScope): Promise<number> {
    return this.#maintenance.clear(scope);
  }

  /** A damaged section here is a text someone changed by hand: the database itself reports no damage of its own. */
  problems(): StoreProblems {
    return { damaged: this.#damaged, notes: [...this.#notes] };
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}
