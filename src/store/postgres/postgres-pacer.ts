import { emptySharedState, pacerOn, type SharedPacer, type SharedState } from '../../throttle/shared-pacer.js';
import type { DatabaseClock } from './database-clock.js';
import type { Database } from './database.js';
import { CLAIMS } from '../../policy/policy.js';

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

/**
 * The shared pacer of one account in the database: the state is one row, read and written back in
 * one transaction holding the account's advisory lock, so every reservation, from any machine,
 * sees every other. Two round trips: the lock, the state and the database's clock (read once the
 * lock is held, so reservations are stamped in the order they were made); then the state written
 * back and the commit. Each is one simple-protocol string of several statements; the state goes in
 * as an escaped literal (the simple protocol has no parameters). Each round trip also measures the
 * database's clock (DatabaseClock).
 *
 * The rules are the ones every store applies (pacerOn); the times a limiter exchanges with them
 * are converted between its clock and the database's.
 */
export function postgresPacer(settings: PacerTableSettings, accountId: () => Promise<number>, owner: string): SharedPacer {
  const { db, s, schemaLiteral, clock } = settings;
  const shared = pacerOn(owner, (change) =>
    db.session(async (client) => {
      const id = await accountId();
      const sentAt = clock.runNow();
      const results = (await client.query(
        `BEGIN; SET LOCAL lock_timeout = '${CLAIMS.lockTimeoutMs}ms'; SET LOCAL idle_in_transaction_session_timeout = '${CLAIMS.idleInTransactionMs}ms';
         SELECT pg_advisory_xact_lock(hashtext('propdata pacer ' || ${schemaLiteral}), ${id});
         SELECT ${s}.clock_ms() AS now, (SELECT state FROM ${s}.pacer WHERE account = ${id}) AS state`,
      )) as unknown as { rows: { now: number; state: string | null }[] }[];
      const { now, state: stored } = results.at(-1)!.rows[0]!;
      clock.observe(now, sentAt, clock.runNow());
      const state = stored === null ? emptySharedState() : (JSON.parse(stored) as SharedState);
      const result = change(state, now);
      await client.query(
        `INSERT INTO ${s}.pacer (account, at, state) VALUES (${id}, ${Math.round(now)}, ${client.escapeLiteral(JSON.stringify(state))})
         ON CONFLICT (account) DO UPDATE SET at = excluded.at, state = excluded.state; COMMIT`,
      );
      return result;
    }),
  );
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
