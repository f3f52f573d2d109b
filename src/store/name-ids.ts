import type { Database, Statement } from 'better-sqlite3';

/**
 * Numbers for the names of one table (accounts, endpoints, claims' owners), so that each row that
 * names one carries a small integer. Rows are never deleted, so a number found stays right, even across processes; `forget`
 * drops the cache after a rollback, which may have undone a row just added.
 */
export class NameIds {
  readonly #ids = new Map<string, number>();
  readonly #find: Statement<[string], number>;
  readonly #add: Statement<[string]>;

  constructor(db: Database, table: 'accounts' | 'endpoints' | 'owners') {
    this.#find = db.prepare<[string], number>(`SELECT id FROM ${table} WHERE name = ?`).pluck();
    this.#add = db.prepare<[string]>(`INSERT INTO ${table} (name) VALUES (?) ON CONFLICT (name) DO NOTHING`);
  }

  /** The number of a name already stored; reading never adds one. */
  find(name: string): number | undefined {
    const cached = this.#ids.get(name);
    if (cached !== undefined) return cached;
    const id = this.#find.get(name);
    if (id !== undefined) this.#ids.set(name, id);
    return id;
  }

  /** The number of a name, added if new: call within a write transaction. */
  ensure(name: string): number {
    const found = this.find(name);
    if (found !== undefined) return found;
    this.#add.run(name);
    return this.find(name)!;
  }

  forget(): void {
    this.#ids.clear();
  }
}
