import { existsSync } from 'node:fs';

/**
 * Whether some process has the SQLite store at `path` open now: in WAL mode its write-ahead log
 * stands beside the file from the first connection until the last one closes (one killed leaves it
 * too, which only costs an opening). A job running on the store is such a process.
 */
export function openElsewhere(path: string): boolean {
  return existsSync(`${path}-wal`);
}
