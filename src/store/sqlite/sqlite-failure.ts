import { StoreError } from '../../errors/index.js';

const codeOf = (error: unknown): string =>
  error !== null && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : '';

/** An error of the store itself (SQLite), as opposed to one of the caller's. */
export function isStoreProblem(error: unknown): boolean {
  return codeOf(error).startsWith('SQLITE_');
}

/** A statement naming a table or a column the file no longer has, as when its schema changed under a prepared statement. */
export function isSchemaMismatch(error: unknown): boolean {
  return codeOf(error) === 'SQLITE_ERROR' && /no such (table|column)|has no column named/.test(error instanceof Error ? error.message : '');
}

/** SQLite found the file damaged (a page it cannot read), or not a database at all. */
export function isDamage(error: unknown): boolean {
  return /^SQLITE_(CORRUPT|NOTADB)/.test(codeOf(error));
}

/**
 * better-sqlite3's native part would not load: never built (its install script did not run, as
 * npm 12 will not run one the project's allowScripts does not name), or built for another Node.
 */
function isUnloadableDriver(error: unknown): boolean {
  const code = codeOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  return (
    code === 'ERR_DLOPEN_FAILED' ||
    /Could not locate the bindings file|NODE_MODULE_VERSION|better_sqlite3\.node/.test(detail) ||
    (/MODULE_NOT_FOUND$/.test(code) && detail.includes('better-sqlite3'))
  );
}

const UNLOADABLE_DRIVER =
  `its SQLite driver, better-sqlite3, has no native module built for this Node (${process.version}): its install script did not run, or ran for another Node. ` +
  'Allow it in the project that installs propdata (`npm approve-scripts better-sqlite3`, or "allowScripts": {"better-sqlite3": true} in its package.json: ' +
  'npm 11 warns of install scripts it does not name, npm 12 does not run them), then `npm rebuild better-sqlite3`; or run with --no-store, or a postgres:// store';

/** What went wrong, and what to do about it, for the one line a user reads. */
function reason(error: unknown, busyTimeoutMs: number): string {
  const code = codeOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (isUnloadableDriver(error)) return UNLOADABLE_DRIVER;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return `another process has kept it locked for over ${busyTimeoutMs / 1000} s; try again, or run with --no-store`;
  }
  // The extended codes (a recovery, a snapshot overtaken) fail at once, without the busy wait: the
  // code is what tells them apart.
  if (/^SQLITE_(BUSY|LOCKED)_/.test(code)) return `another process held a lock it needed (${code}); try again, or run with --no-store`;
  if (isDamage(error)) return `it is damaged or not a propdata store (${detail}); move it aside, or run with --no-store`;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return 'the disk is full; free some space, or run with --no-store';
  if (/^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)|^E(ACCES|PERM|ROFS|NOTDIR|ISDIR|EXIST)$/.test(code)) {
    return `it cannot be opened for writing (${detail}); give another file with --store FILE, or run with --no-store`;
  }
  return `${detail}; run with --no-store to go without it`;
}

/** One clear line naming --no-store, for any failure of the store. */
export function storeFailure(path: string, error: unknown, busyTimeoutMs: number): StoreError {
  return new StoreError(`cannot use the store ${path}: ${reason(error, busyTimeoutMs)}`, error);
}
