import type { Database } from 'better-sqlite3';
import { encode, type EncodedAnswer } from '../kept-text.js';
import { NameIds } from '../name-ids.js';
import type { StoreEntry } from '../store-api.js';
import { ClaimTable } from './claims.js';
import { SectionTable } from './sections.js';
import { SpendLog } from './spend-log.js';
import { WindowMemory } from './window-memory.js';

/** An entry as it is written: its answers' texts made before any lock is taken (kept-text.ts). */
export interface EncodedEntry extends Omit<StoreEntry, 'answers'> {
  answers: EncodedAnswer[];
}

export const encodeEntry = (entry: StoreEntry): EncodedEntry => ({ ...entry, answers: entry.answers.map(encode) });

/** The tables an entry is written to, each with its statements prepared once. */
export class EntryTables {
  readonly accounts: NameIds;
  readonly endpoints: NameIds;
  readonly owners: NameIds;
  readonly sections: SectionTable;
  readonly claims: ClaimTable;
  readonly spend: SpendLog;
  readonly windows: WindowMemory;

  constructor(db: Database) {
    this.accounts = new NameIds(db, 'accounts');
    this.endpoints = new NameIds(db, 'endpoints');
    this.owners = new NameIds(db, 'owners');
    this.sections = new SectionTable(db, this.endpoints);
    this.claims = new ClaimTable(db, this.endpoints, this.owners);
    this.spend = new SpendLog(db, this.accounts);
    this.windows = new WindowMemory(db, this.accounts);
  }

  /** A rollback may have undone names just numbered: they are looked up again. */
  forget(): void {
    for (const ids of [this.accounts, this.endpoints, this.owners]) ids.forget();
  }

  /**
   * What requests left (Store.record), inside the caller's write transaction: for each one not
   * recorded already, its answers (stamped `now()`, read under the lock, so that answers are
   * stamped in the order they are committed; or when they arrived, for one recorded late), its
   * spend, the windows it stated, and the release of the claims its answers settle.
   */
  record(entries: readonly EncodedEntry[], now: () => number): void {
    for (const entry of entries) {
      if (this.spend.hasRequest(entry.request)) continue;
      const account = this.accounts.ensure(entry.request.account);
      const at = entry.arrivedAt ?? now();
      for (const answer of entry.answers) this.sections.keep(account, answer, at);
      this.spend.recordRequest(entry.request);
      this.windows.save(entry.request.account, entry.windows, at);
      if (entry.owner !== undefined && entry.settles) this.claims.release(account, entry.owner, entry.settles);
    }
  }
}
