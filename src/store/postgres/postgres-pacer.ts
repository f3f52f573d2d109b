import { emptySharedState, pacerOn, type SharedPacer, type SharedState } from '../../throttle/shared-pacer.js';
import type { DatabaseClock } from './database-clock.js';
import type { Database } from './database.js';
import { CLAIMS, STORE_WAITS } from '../../policy/policy.js';

/**
 * The lock of one account's pacer: a transaction-scoped advisory lock, so that a job cut off
 * mid-transaction (killed, its network gone) holds it no longer than the database keeps its
 * connection; within the transaction, no other job's lock wait lasts longer than CLAIMS.lockTimeoutMs, and
 * a job silent in it longer than CLAIMS.idleInTransactionMs is cut off by the database. Both far beyond the
 * milliseconds a reservation takes.
 */

export interface PacerTableSettings {
  db: Database;
  /** The store's schema, quoted (`s.pacer`), and its name as text (the lock's key). */
  s: string;
  schemaLiteral: string;
  clock: DatabaseClock;
}

/** The state as this session last wrote it: its text, its time, and the row's version then (its xmin). */
interface Written {
  text: string;
  at: number;
  version: string;
}

type Change<T> = (state: SharedState, now: number) => T;

/**
 * The state changed in one round trip, on what this session last wrote: written back only if the
 * row is still that version (no other session wrote it since), else nothing is written and
 * undefined returned. Its time is the database's now as this run sees it (DatabaseClock: within
 * half a round trip), never before the state's own: reservations are stamped in the order they were made.
 */
async function changeWritten<T>(
  settings: PacerTableSettings,
  id: number,
  last: Written,
  change: Change<T>,
): Promise<{ result: T; written: Written } | undefined> {
  const { db, s, clock } = settings;
  const state = JSON.parse(last.text) as SharedState;
  const now = Math.round(Math.max(last.at, clock.toDatabase(clock.runNow())));
  const result = change(state, now);
  const text = JSON.stringify(state);
  const sentAt = clock.runNow();
  const [row] = await db.query<{ version: string; clock: number }>(
    `UPDATE ${s}.pacer SET at = $2, state = $3 WHERE account = $1 AND xmin = $4::text::xid
     RETURNING xmin::text AS version, ${s}.clock_ms() AS clock`,
    [id, now, text, last.version],
  );
  if (row === undefined) return undefined;
  clock.observe(row.clock, sentAt, clock.runNow());
  return { result, written: { text, at: now, version: row.version } };
}

/**
 * The state changed under the account's lock, in two round trips: the lock, the state (its row
 * locked too, so that no write on a version read earlier slips in before this one's) and the
 * database's clock, read once the lock is held, so reservations are stamped in the order they were
 * made; then the state written back and the commit. Each is one simple-protocol string of several
 * statements; the state goes in as an escaped literal (the simple protocol has no parameters).
 */
async function changeLocked<T>(settings: PacerTableSettings, id: number, change: Change<T>): Promise<{ result: T; written: Written }> {
  const { db, s, schemaLiteral, clock } = settings;
  const sentAt = clock.runNow();
  let text = '';
  let at = 0;
  const { result, written } = await db.transactionInTwo<T>(
    () => `SET LOCAL lock_timeout = '${CLAIMS.lockTimeoutMs}ms'; SET LOCAL idle_in_transaction_session_timeout = '${CLAIMS.idleInTransactionMs}ms';
       SELECT pg_advisory_xact_lock(hashtext('propdata pacer ' || ${schemaLiteral}), ${id});
       SELECT ${s}.clock_ms() AS now, (SELECT state FROM ${s}.pacer WHERE account = ${id} FOR UPDATE) AS state`,
    ([row], client) => {
      const { now, state: stored } = row as { now: number; state: string | null };
      clock.observe(now, sentAt, clock.runNow());
      const state = stored === null ? emptySharedState() : (JSON.parse(stored) as SharedState);
      const changed = change(state, now);
      [text, at] = [JSON.stringify(state), Math.round(now)];
      return {
        result: changed,
        write: `INSERT INTO ${s}.pacer (account, at, state) VALUES (${id}, ${at}, ${client.escapeLiteral(text)})
         ON CONFLICT (account) DO UPDATE SET at = excluded.at, state = excluded.state RETURNING xmin::text AS version`,
      };
    },
  );
  return { result, written: { text, at, version: (written[0] as { version: string }).version } };
}

/**
 * The shared pacer of one account in the database: the state is one row, every change to it read
 * and written back in one transaction, so every reservation, from any machine, sees every other.
 * A session changes the state it last wrote in one round trip, written only if no other session
 * wrote the row since (its version, xmin); else, and while others write it too
 * (STORE_WAITS.pacerContestedMs), it reads the state under the account's lock first (two round
 * trips). Each round trip also measures the database's clock (DatabaseClock).
 *
 * The rules are the ones every store applies (pacerOn); the times a limiter exchanges with them
 * are converted between its clock and the database's.
 */
export function postgresPacer(settings: PacerTableSettings, accountId: () => Promise<number>, owner: string): SharedPacer {
  const { clock } = settings;
  let last: Written | undefined;
  let contestedUntil = -Infinity;
  const shared = pacerOn(owner, async (change) => {
    const id = await accountId();
    const tried = last !== undefined && clock.runNow() >= contestedUntil;
    const quick = tried ? await changeWritten(settings, id, last!, change) : undefined;
    // Another session wrote it since this one did: it shares the pacer busily, for a while.
    if (tried && !quick) contestedUntil = clock.runNow() + STORE_WAITS.pacerContestedMs;
    const { result, written } = quick ?? (await changeLocked(settings, id, change));
    last = written;
    return result;
  });
  return {
    ...shared,
    async reserve(request) {
      const windows = request.windows.map((window) =>
        window.resetAt === undefined ? window : { ...window, resetAt: clock.resetToDatabase(window.resetAt) },
      );
      const grant = await shared.reserve({ ...request, windows });
      return 'id' in grant ? grant : { components: 0, retryAt: clock.toRun(grant.retryAt) };
    },
    report: (reservation, reported) =>
      shared.report(
        reservation,
        reported.map((window) => ({ ...window, resetAt: clock.resetToDatabase(window.resetAt) })),
      ),
  };
}
