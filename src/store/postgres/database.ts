import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { PropdataError, type StoreError } from '../../errors/index.js';
import { newerSchemaFailure } from '../newer-schema.js';
import { databaseFailure, isTransient, isUndefinedObject } from './postgres-failure.js';

/** A statement undone for a deadlock's sake is run again this many times in all. */
const ATTEMPTS = 3;

/** The name each statement text is prepared under, on every connection that runs it. */
const names = new Map<string, string>();

/**
 * A statement with parameters as a prepared one: each connection parses and plans it once, then
 * binds it. A claim's read (three joins over a list) took 1.1 ms a time planned afresh, 0.6 ms
 * prepared. A statement without parameters (a lock, a few statements in one text) stays unnamed.
 */
export function prepared(text: string, values: readonly unknown[]): QueryConfig {
  if (values.length === 0) return { text };
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `propdata_${names.size + 1}`));
  return { name, text, values: values.map(parameter) };
}

/** What JSON.stringify escapes otherwise than PostgreSQL's array literal reads it: control characters (and lone surrogates). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NOT_LITERAL = /[\u0000-\u001f\ud800-\udfff]/;

/** Whether JSON.stringify writes an element as PostgreSQL's array literal reads it (an item's key among them). */
const jsonElement = (element: unknown) =>
  element === null || (typeof element === 'string' ? !NOT_LITERAL.test(element) : Number.isSafeInteger(element));

/**
 * A value as it is sent: an array of texts (or nulls) as the array literal JSON.stringify writes,
 * braces for brackets. Within quotes, both escape only `"` and `\` with a backslash once there is no
 * control character or surrogate (those go the driver's way); null is NULL in both. node-postgres
 * escapes each element with regular expressions instead: 0.6 ms for 100 answers, JSON.stringify a
 * fifth of that, and a first run sends every answer, identity and claim as such arrays.
 */
export function parameter(value: unknown): unknown {
  return Array.isArray(value) && value.every(jsonElement) ? `{${JSON.stringify(value).slice(1, -1)}}` : value;
}

/**
 * A text as a string constant, as node-postgres's escapeLiteral writes it (quotes doubled; with a
 * backslash, backslashes doubled too, in an escape string) but by one regular expression: the
 * driver's builds it a character at a time, and a claim's statements quote every identity (about
 * 10 µs an item of the run's time, and its garbage).
 */
function quoted(text: string): string {
  const escaped = `'${text.replace(/['\\]/g, '$&$&')}'`;
  return text.includes('\\') ? ` E${escaped}` : escaped;
}

/**
 * A value as a literal in a statement's text (the simple protocol, which has no parameters): an
 * array of texts (or nulls), or of numbers, as an array literal (as `parameter` writes it, else each element
 * quoted), quoted; a text quoted; a number as it is.
 */
export function literal(value: string | number | readonly (string | null)[] | readonly number[]): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return quoted(value);
  if (value.every(jsonElement)) return quoted(`{${JSON.stringify(value).slice(1, -1)}}`);
  const elements = value.map((element) =>
    typeof element === 'string' ? `"${element.replace(/["\\]/g, '\\$&')}"` : String(element ?? 'NULL'),
  );
  return quoted(`{${elements.join(',')}}`);
}

/** How the store's schema says its version, and the newest this propdata knows. */
export interface SchemaVersion {
  versionQuery: string;
  known: number;
}

/**
 * The store's connections to its database (a small pool: a run's lookups, several at once, its
 * claims, its writes and its pacer each have theirs, so none waits behind another), and the one
 * place where the database's failures become StoreErrors. Every statement the store sends is one of:
 *
 * - `query`: one statement, a transaction of its own (its data-modifying CTEs included), tried
 *   again when the database undid it to break a deadlock;
 * - `transaction`: several round trips in one transaction (a group's write), tried again alike;
 * - `transactionInTwo`: a transaction in two round trips of several statements each (a claim, the
 *   pacer's under its lock), tried again alike;
 * - `session`: a client for several round trips (the migrations).
 */
export class Database {
  readonly #pool: Pool;
  readonly #location: string;
  /** The tests' clock for the database's now_ms() and clock_ms() (schema.ts), in place of its own. */
  readonly #testNow: (() => number) | undefined;
  readonly #schema: SchemaVersion;
  /**
   * Clients back from their statements, kept out of the pool for the next ones (the latest first),
   * each with what drops it if its connection breaks while it waits. Taken and given back here,
   * a statement skips the pool's turn of the event loop and its connect timer: 0.02 ms a round
   * trip, and a one-item call makes two (BENCHMARKS.md, oneItem). None is kept while a statement
   * waits in the pool for a client: it goes to that statement.
   */
  readonly #kept: { client: PoolClient; broken: () => void }[] = [];
  #closed = false;

  constructor(pool: Pool, location: string, testNow: (() => number) | undefined, schema: SchemaVersion) {
    this.#pool = pool;
    this.#location = location;
    this.#testNow = testNow;
    this.#schema = schema;
    // An idle connection that breaks (the server restarted) is dropped by the pool, and the next
    // statement connects afresh; only a statement that fails stops the run.
    pool.on('error', () => undefined);
  }

  async session<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    try {
      return await this.#checkedOut(work);
    } catch (error) {
      if (error instanceof PropdataError) throw error;
      // The failed client is closed by now: asking the schema's version never waits for it.
      throw (await this.#migratedUnder(error)) ?? databaseFailure(this.#location, error);
    }
  }

  /** `work` on a client of the pool, returned after it (closed, not reused, when it failed). */
  async #checkedOut<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient | undefined;
    let failed = false;
    // A connection cut while checked out (the server restarted, an administrator ended it) is an
    // 'error' event on the client, which the pool does not take for it: heard here, and the
    // statement in progress fails with it; unheard, it would end the process.
    const cut = () => {
      failed = true;
    };
    try {
      client = await this.#take();
      client.on('error', cut);
      if (this.#testNow) await client.query("SELECT set_config('propdata.now', $1, false)", [String(this.#testNow())]);
      return await work(client);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // A client that failed may be mid-transaction or cut off: it is closed, not reused.
      client?.off('error', cut);
      if (client) this.#giveBack(client, failed);
    }
  }

  /** A client kept from an earlier statement, else one of the pool's. */
  async #take(): Promise<PoolClient> {
    const kept = this.#kept.pop();
    if (kept === undefined) return this.#pool.connect();
    kept.client.off('error', kept.broken);
    return kept.client;
  }

  /** A client back from its statements: kept for the next, or to the pool (closed there when it failed). */
  #giveBack(client: PoolClient, failed: boolean): void {
    if (failed || this.#closed || this.#pool.waitingCount > 0) {
      client.release(failed);
      return;
    }
    // Broken while kept (the server restarted): dropped as the pool drops an idle client of its own,
    // and any later error of it heard and ignored.
    const broken = () => {
      this.#kept.splice(
        this.#kept.findIndex((kept) => kept.client === client),
        1,
      );
      client.off('error', broken);
      client.on('error', () => undefined);
      client.release(true);
    };
    client.on('error', broken);
    this.#kept.push({ client, broken });
  }

  /**
   * A newer propdata's migration under this run (on this machine or another): the statement named
   * something the schema no longer has, and the schema now says a version this propdata does not know.
   */
  async #migratedUnder(error: unknown): Promise<StoreError | undefined> {
    if (!isUndefinedObject(error)) return undefined;
    const found = await this.#checkedOut((client) => client.query<{ version: number }>(this.#schema.versionQuery)).then(
      ({ rows }) => rows[0]?.version ?? 0,
      () => 0,
    );
    return found > this.#schema.known ? newerSchemaFailure(this.#location, found, this.#schema.known, error) : undefined;
  }

  async query<R extends QueryResultRow>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    return this.#retried(() => this.session(async (client) => (await client.query<R>(prepared(text, values))).rows));
  }

  /**
   * As `query`, each row an array of its columns in order: node-postgres builds no object a row
   * (a rerun's lookups read one row a section, 100,000 for as many rows).
   */
  async queryArrays<R extends unknown[]>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    return this.#retried(() =>
      this.session(async (client) => (await client.query<R>({ ...prepared(text, values), rowMode: 'array' })).rows),
    );
  }

  /**
   * `work` between BEGIN and COMMIT on one client. A failure leaves the client closed, not
   * returned (session), which ends the transaction: nothing half done is committed.
   */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.#retried(() =>
      this.session(async (client) => {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      }),
    );
  }

  /**
   * A transaction in two round trips, each one simple-protocol string of several statements (no
   * parameters: values go in as literals, `literal`): BEGIN and what `opening` says, whose last
   * statement's rows `work` reads; then what `work` returns to write, if anything, and COMMIT (the
   * write's rows come back with the result). Each statement still has a snapshot of its own (READ
   * COMMITTED): one that follows a lock sees what was committed before the lock was had. Undone and
   * tried again as `transaction` is.
   */
  async transactionInTwo<T>(
    opening: (client: PoolClient) => string,
    work: (rows: QueryResultRow[], client: PoolClient, opened: QueryResultRow[][]) => { write?: string; result: T },
  ): Promise<{ result: T; written: QueryResultRow[] }> {
    return this.#retried(() =>
      this.session(async (client) => {
        const results = (await client.query(`BEGIN; ${opening(client)}`)) as unknown as QueryResult<QueryResultRow>[];
        const { write, result } = work(
          results.at(-1)!.rows,
          client,
          results.map((opened) => opened.rows),
        );
        if (write === undefined) {
          await client.query('COMMIT');
          return { result, written: [] };
        }
        const [written] = (await client.query(`${write}; COMMIT`)) as unknown as QueryResult<QueryResultRow>[];
        return { result, written: written!.rows };
      }),
    );
  }

  /** Runs `attempt` again when the database undid it to break a deadlock. */
  async #retried<T>(attempt: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries += 1) {
      try {
        return await attempt();
      } catch (error) {
        if (tries >= ATTEMPTS || !(error instanceof PropdataError) || !isTransient(error.cause)) throw error;
      }
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const { client, broken } of this.#kept.splice(0)) {
      client.off('error', broken);
      client.release();
    }
    await this.#pool.end();
  }
}
