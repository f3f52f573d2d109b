import { StoreError } from '../../errors/index.js';

/** A node-postgres or network error's code: SQLSTATE for the database's own errors, errno names for the network's. */
export const codeOf = (error: unknown): string =>
  error !== null && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : '';

const detailOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

/** SQLSTATE of a statement the database chose to undo for another's sake (a deadlock's victim): run as it is again, it goes through. */
export const isTransient = (error: unknown): boolean => ['40P01', '40001'].includes(codeOf(error));

/** Network failures of a connection: the database or the way to it is down, for now. */
const UNREACHABLE = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN'];

/**
 * Whether the database is unreachable or restarting (worth waiting for: a restart, a failover, a
 * network cut), rather than refusing what it was asked (a login, a privilege, a missing database, a
 * full disk), which no wait mends. SQLSTATE class 08 is a connection lost; 57P01 to 57P03 a server
 * shutting down or starting; 53300 its connections all taken. node-postgres says "Connection
 * terminated" of a connection cut under it, and "timeout" of one that stopped answering.
 */
export function isOutage(error: unknown): boolean {
  const code = codeOf(error);
  if (UNREACHABLE.includes(code) || code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  // An administrator closed the database to connections for a while (ALTER DATABASE ... ALLOW_CONNECTIONS false).
  if (code === '55000' && /not currently accepting connections/i.test(detailOf(error))) return true;
  return code === '' && /connection terminated|timeout|Connection ended|not queryable/i.test(detailOf(error));
}

/** What went wrong, and what to do about it, for the one line a user reads (never the URL's password: only `location` names it). */
function reason(error: unknown): string {
  const code = codeOf(error);
  const detail = detailOf(error);
  if (code === 'ECONNREFUSED')
    return 'the database refused the connection (nothing listens at that host and port); start it or correct the URL';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `its host was not found (${code}); correct the URL`;
  if (['ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE'].includes(code) || /timeout|terminated/i.test(detail)) {
    return `the database did not answer (${detail}); check that it is up and reachable from this machine`;
  }
  if (code === '28P01' || code === '28000')
    return `the database refused the login (${detail}); check the user, and the password in PGPASSWORD or ~/.pgpass`;
  if (code === '3D000') return `${detail}; create it, or name an existing one`;
  if (code === '42501') {
    return `${detail}; the user needs the privilege to create its schema in the database (or a schema made for it, with USAGE and CREATE), as the README says`;
  }
  if (code === '55P03') return `another job held the account's pacer for too long (${detail}); try again`;
  if (code === '53300' || code.startsWith('57P')) return `the database is not taking connections now (${detail}); try again later`;
  if (/ssl|tls|certificate/i.test(detail)) return `TLS failed (${detail}); see the README on sslmode and sslrootcert`;
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
