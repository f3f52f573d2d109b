import { StoreError } from '../../errors/index.js';

/** A node-postgres or network error's code: SQLSTATE for the database's own errors, errno names for the network's. */
export const codeOf = (error: unknown): string =>
  error !== null && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : '';

const detailOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

/**
 * SQLSTATE of a statement naming a column, table or function the database does not have (42703,
 * 42P01, 42883): once the store is set up, a newer propdata's migration under this run.
 */
export const isUndefinedObject = (error: unknown): boolean => ['42703', '42P01', '42883'].includes(codeOf(error));

/** SQLSTATE of a statement the database chose to undo for another's sake (a deadlock's victim): run as it is again, it goes through. */
export const isTransient = (error: unknown): boolean => ['40P01', '40001'].includes(codeOf(error));

/** The network's failures to reach a server that may be back in a moment (EAI_AGAIN: a name server that did not answer, not a name that is wrong). */
const NETWORK_OUTAGES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EPIPE',
  'EAI_AGAIN',
];

/**
 * The database's own codes for "not now": shut down by an administrator or crashed (57P01,
 * 57P02: it restarts), starting up or in recovery (57P03), an idle connection it closed (57P05: a
 * new one is welcome), every connection slot taken (53300: others end). Class 08 is the
 * connection itself failing, but for 08P01, a protocol violation, which no reconnecting mends.
 */
const DATABASE_OUTAGES = ['57P01', '57P02', '57P03', '57P05', '53300'];

/** node-postgres's own failures, which carry no code: the socket closed, or a connection or a statement timed out (a stalled server). */
const DRIVER_OUTAGE =
  /^(Connection terminated|timeout expired|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/i;

/**
 * Whether a failure is the database unreachable or restarting: worth waiting for and connecting
 * again (a network down, a server restarting or failing over, a connection cut or stalled). Not
 * for a refusal that waiting will not mend: a login, a privilege, a missing database, a
 * statement_timeout, a full disk, a read-only server, a statement propdata got wrong. A failure
 * wrapped (a StoreError's cause, a driver's error with its own cause) is judged by the first code
 * along the chain, else by node-postgres's words.
 */
export function isOutage(error: unknown): boolean {
  let found = error;
  for (let depth = 0; depth < 5 && found !== undefined; depth += 1) {
    const code = codeOf(found);
    if (code !== '')
      return (
        NETWORK_OUTAGES.includes(code) ||
        DATABASE_OUTAGES.includes(code) ||
        (code.startsWith('08') && code !== '08P01') ||
        // An administrator closed the database to connections for a while (ALTER DATABASE ... ALLOW_CONNECTIONS false).
        (code === '55000' && /not currently accepting connections/i.test(detailOf(found)))
      );
    if (DRIVER_OUTAGE.test(detailOf(found))) return true;
    found = found instanceof Error ? found.cause : undefined;
  }
  return false;
}

/** `ALTER ROLE ... SET name = value`: where a role's setting is changed (ALTER DATABASE for every role). */
const alterRole = (setting: string) => `ALTER ROLE <user> SET ${setting} (or ALTER DATABASE)`;

/** A statement the database cancelled: by its statement_timeout, by an administrator, or for another reason it names. */
function cancelled(detail: string): string {
  if (/statement timeout/i.test(detail)) {
    return `the database cancelled a statement that ran past its statement_timeout (${detail}); the role's or database's statement_timeout is too short for propdata: raise it, ${alterRole("statement_timeout = '5min'")}`;
  }
  if (/user request/i.test(detail)) return `a statement was cancelled by an administrator (${detail}); run again`;
  return `the database cancelled a statement (${detail}); run again`;
}

const login = (detail: string) => `the database refused the login (${detail}); check the user, and the password in PGPASSWORD or ~/.pgpass`;
const undone = (detail: string) => `the database undid a transaction for another's sake (${detail}); run again: nothing is lost`;

/** The database's refusals by SQLSTATE: what went wrong, and the next step. */
const REFUSALS: Readonly<Record<string, (detail: string) => string>> = {
  '28P01': login,
  '28000': login,
  '3D000': (detail) => `${detail}; create it, or name an existing one`,
  '42501': (detail) =>
    `${detail}; the user needs the privilege to create its schema in the database (or a schema made for it, with USAGE and CREATE), as docs/several-machines.md says`,
  '55P03': (detail) => `another job held the account's pacer for too long (${detail}); try again`,
  '57014': cancelled,
  '25006': (detail) =>
    `the database is read-only (${detail}): a standby (a read replica), or default_transaction_read_only is on; point the URL at the primary, or ${alterRole('default_transaction_read_only = off')}`,
  '25P03': (detail) =>
    `the database ended a transaction that waited too long (${detail}); the role's or database's idle_in_transaction_session_timeout is too short for propdata: raise it, ${alterRole("idle_in_transaction_session_timeout = '5min'")}`,
  '57P05': (detail) =>
    `the database closed a connection that waited too long (${detail}); the role's or database's idle_session_timeout is shorter than propdata's waits: raise it, ${alterRole('idle_session_timeout = 0')}, or run again`,
  '53100': (detail) => `the database's disk is full (${detail}); free room on the database server, then run again`,
  '53200': (detail) => `the database ran out of memory (${detail}); run again, or give the database server more memory`,
  '53300': (detail) => `the database is not taking connections now (${detail}); try again later`,
  '40001': undone,
  '40P01': undone,
  '57P01': (detail) =>
    `an administrator ended the connection (${detail}: a shutdown or restart, or pg_terminate_backend); run again once the database is up`,
  '57P02': (detail) => `the database server crashed (${detail}); run again once it is back`,
  '57P03': (detail) => `the database is starting up or recovering (${detail}); try again in a moment`,
};

/** What went wrong, and what to do about it, for the one line a user reads (never the URL's password: only `location` names it). */
function reason(error: unknown): string {
  const code = codeOf(error);
  const detail = detailOf(error);
  const refusal = REFUSALS[code];
  if (refusal) return refusal(detail);
  if (code.startsWith('54')) {
    return `the database refused a statement over one of its limits (${detail}); raise that setting on the server (max_stack_depth, max_locks_per_transaction...), or report it to propdata's maintainers`;
  }
  if (code === 'ECONNREFUSED')
    return 'the database refused the connection (nothing listens at that host and port); start it or correct the URL';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `its host was not found (${code}); correct the URL`;
  if (code.startsWith('57P') || (code.startsWith('08') && code !== '08P01'))
    return `the database is not taking connections now (${detail}); try again later`;
  if (NETWORK_OUTAGES.includes(code) || DRIVER_OUTAGE.test(detail)) {
    return `the database did not answer (${detail}); check that it is up and reachable from this machine`;
  }
  if (/client password must be a string/i.test(detail)) {
    return 'the database asks for a password and none was given; set PGPASSWORD, or add a line for it to ~/.pgpass';
  }
  if (/ssl|tls|certificate/i.test(detail)) return `TLS failed (${detail}); see docs/several-machines.md on sslmode and sslrootcert`;
  return `${detail}${code ? ` (${code})` : ''}`;
}

/** One clear line naming --no-store, for any failure of the database: never a silent fallback to pacing alone. */
export function databaseFailure(location: string, error: unknown): StoreError {
  const why = reason(error);
  return new StoreError(`cannot use the store ${location}: ${why}; or run with --no-store`, error, {
    outage: isOutage(error),
    reason: why,
  });
}
