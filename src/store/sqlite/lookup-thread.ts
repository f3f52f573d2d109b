import { parentPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';
import { NameIds } from '../name-ids.js';
import { ItemLookup, slotsOf, type KeptRows } from './item-lookup.js';
import type { LookupAnswer, LookupAsk, LookupThreadData } from './lookups-off-thread.js';
import { packRows, type PackedRows } from './packed-rows.js';

/**
 * The lookup thread (lookups-off-thread.ts): its own read-only connection to the store's file, which
 * answers each ask with the KeptRows of its items, read in one read transaction, as the store's own
 * connection would (SqliteStore.find). It decodes nothing and decides nothing: a failure of any kind
 * is answered `undefined`, and the store looks the items up on its own connection, as without it.
 */
const { path, busyTimeoutMs, cacheKib } = workerData as LookupThreadData;
const db = new Sqlite(path, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
db.pragma(`cache_size = -${cacheKib}`);
const accounts = new NameIds(db, 'accounts');
const lookup = new ItemLookup(db, new NameIds(db, 'endpoints'));
const begin = db.prepare('BEGIN');
const end = db.prepare('ROLLBACK');

function rowsOf({ account, items, from }: LookupAsk): KeptRows {
  const kept: KeptRows = [];
  begin.run();
  try {
    const id = accounts.find(account);
    for (const [identity, asked] of items) {
      if (id === undefined) kept.push(...Array<undefined>(slotsOf(asked)));
      else lookup.rows(id, identity, asked, from, kept);
    }
    return kept;
  } finally {
    if (db.inTransaction) end.run();
  }
}

parentPort!.on('message', (ask: LookupAsk) => {
  let rows: PackedRows | undefined;
  try {
    rows = packRows(rowsOf(ask));
  } catch {
    rows = undefined;
  }
  // The buffer is moved, not copied: neither thread keeps a copy of the texts (packed-rows.ts).
  parentPort!.postMessage({ id: ask.id, rows } satisfies LookupAnswer, rows ? [rows.buffer] : []);
});
parentPort!.postMessage({ ready: true } satisfies LookupAnswer);
