import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { STORE_LOOKUPS } from '../../policy/policy.js';
import type { ItemRef, SectionRef } from '../store-api.js';
import type { KeptRows } from './item-lookup.js';
import { unpackRows, type PackedRows } from './packed-rows.js';

export interface LookupThreadData {
  path: string;
  busyTimeoutMs: number;
  /** The thread's page cache (STORE_LOOKUPS.threadCacheKib). */
  cacheKib: number;
}

/** One ask: the items of a lookup (identity and the sections asked), as plain values. */
export interface LookupAsk {
  id: number;
  account: string;
  items: [identity: string, asked: readonly SectionRef[]][];
  from: number;
}

/** The thread's word: ready for asks, or one ask's rows (undefined: it failed, look them up here). */
export type LookupAnswer = { ready: true; id?: undefined } | { id: number; rows: PackedRows | undefined };

/**
 * The compiled thread: next to this module in dist/; from the sources (the tests, run by vitest
 * once dist/ is built), the one in dist/. None (the sources alone): lookups stay on the store's connection.
 */
function threadFile(): URL | undefined {
  return [new URL('./lookup-thread.js', import.meta.url), new URL('../../../dist/store/sqlite/lookup-thread.js', import.meta.url)].find(
    (url) => existsSync(fileURLToPath(url)),
  );
}

/**
 * A batch's lookups on a thread of their own, with its own read-only connection to the file: the SQL
 * of a rerun runs beside the main thread's decoding and writing, as a server's work does beside the
 * client's for --no-store, and the lookups a batch issues ahead (a few blocks) overlap its writing.
 * Started at the first lookup that asks for it; until it is ready, and whenever it fails, the store
 * looks up on its own connection (`find` gives undefined). It reads committed data only (WAL): an
 * ask is sent after every write this process made before it, so it sees them (PROTOCOL.md).
 */
export class LookupThread {
  readonly #data: LookupThreadData;
  #worker: Worker | undefined;
  #ready = false;
  #over = false;
  #next = 0;
  readonly #waiting = new Map<number, (rows: KeptRows | undefined) => void>();
  #started!: (ready: boolean) => void;
  /** Whether the thread became ready (false: it could not start, or ended first); settled once `ready` has started it. */
  readonly started = new Promise<boolean>((resolve) => (this.#started = resolve));

  constructor(data: Omit<LookupThreadData, 'cacheKib'>) {
    this.#data = { ...data, cacheKib: STORE_LOOKUPS.threadCacheKib };
  }

  /** Whether asks go to the thread now; the first call starts it. */
  ready(): boolean {
    if (!this.#ready && !this.#worker && !this.#over) this.#start();
    return this.#ready;
  }

  /** The items' KeptRows, in order, or undefined when the thread could not read them. */
  find(account: string, items: readonly ItemRef[], from: number): Promise<KeptRows | undefined> {
    const worker = this.#worker;
    if (!worker || !this.#ready) return Promise.resolve(undefined);
    const id = this.#next++;
    return new Promise((resolve) => {
      // Only an ask keeps the process alive: an idle thread never holds a run's exit.
      if (this.#waiting.size === 0) worker.ref();
      this.#waiting.set(id, resolve);
      const ask: LookupAsk = { id, account, items: items.map((ref) => [ref.item, ref.sections]), from };
      try {
        worker.postMessage(ask);
      } catch {
        // An ask the thread cannot take is looked up on the store's connection, like one it could not read.
        this.#answered({ id, rows: undefined });
      }
    });
  }

  /** Stops the thread; an ask still waiting is looked up on the store's connection. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#end();
    if (worker) await worker.terminate();
  }

  #start(): void {
    const file = availableParallelism() >= STORE_LOOKUPS.threadFromCores ? threadFile() : undefined;
    try {
      if (file) this.#worker = new Worker(file, { workerData: this.#data });
    } catch {
      // Threads unavailable: as without the compiled file.
    }
    if (!this.#worker) {
      this.#end();
      return;
    }
    this.#worker.unref();
    this.#worker.on('message', (answer: LookupAnswer) => this.#answered(answer));
    // A thread that cannot open the file (or dies) leaves the lookups to the store's connection.
    this.#worker.on('error', () => this.#end());
    this.#worker.on('exit', () => this.#end());
  }

  #answered(answer: LookupAnswer): void {
    if (answer.id === undefined) {
      this.#ready = !this.#over;
      this.#started(this.#ready);
      return;
    }
    const resolve = this.#waiting.get(answer.id);
    this.#waiting.delete(answer.id);
    if (this.#waiting.size === 0) this.#worker?.unref();
    resolve?.(answer.rows && unpackRows(answer.rows));
  }

  #end(): void {
    this.#over = true;
    this.#ready = false;
    this.#worker?.unref();
    this.#worker = undefined;
    for (const resolve of this.#waiting.values()) resolve(undefined);
    this.#waiting.clear();
    this.#started(false);
  }
}
