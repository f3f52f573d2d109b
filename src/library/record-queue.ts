import type { OutputRecord } from '../model/record.js';
import type { OutputWriter } from '../output/open-output.js';
import type { PaidRecords } from '../pipeline/summary.js';

/**
 * Records a caller has not taken yet before the engine is made to wait: the pipeline stops
 * reading items while its output waits, so a slow loop body holds memory to this and the
 * pipeline's own bounded window, however many items the iterable yields.
 */
const HIGH_WATER = 256;

/** What was bought for a record: its components, and their list price when answered with data. */
export type BoughtFor = (record: OutputRecord) => { components: number; usd: number };

/**
 * The engine's output for a library batch: records go into a queue the caller's `for await`
 * takes from. It never fails; once the caller has left (`break`, an abort), records are dropped,
 * and those that were paid for are counted (`paidNotHandedOver`): never dropped without a word.
 */
export class RecordQueue implements OutputWriter {
  readonly failed: Promise<never> = new Promise<never>(() => undefined);
  readonly paidNotHandedOver: PaidRecords = { records: 0, components: 0, costUsd: 0 };
  readonly #boughtFor: BoughtFor;
  readonly #records: OutputRecord[] = [];
  #closed = false;
  #left = false;
  /** The caller waiting for a record (or the end). */
  #taker: (() => void) | undefined;
  /** The engine waiting for room. */
  #room: (() => void) | undefined;

  constructor(boughtFor: BoughtFor = () => ({ components: 0, usd: 0 })) {
    this.#boughtFor = boughtFor;
  }

  write(record: OutputRecord): Promise<void> | undefined {
    if (this.#left) {
      this.#dropped(record);
      return undefined;
    }
    this.#records.push(record);
    this.#wakeTaker();
    if (this.#records.length < HIGH_WATER) return undefined;
    return new Promise<void>((resolve) => (this.#room = resolve));
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#wakeTaker();
    return Promise.resolve();
  }

  /**
   * The next record, or undefined once the engine has closed the queue and it is empty, or once
   * `signal` is aborted (a wait for a record ends with it).
   */
  async take(signal?: AbortSignal): Promise<OutputRecord | undefined> {
    const waiting = () => this.#records.length === 0 && !this.#closed && !signal?.aborted;
    // Listened to only while waiting: most records are taken from a queue that has them.
    if (waiting()) {
      const wake = () => this.#wakeTaker();
      signal?.addEventListener('abort', wake, { once: true });
      try {
        while (waiting()) await new Promise<void>((resolve) => (this.#taker = resolve));
      } finally {
        signal?.removeEventListener('abort', wake);
      }
    }
    if (signal?.aborted) return undefined;
    const record = this.#records.shift();
    if (this.#records.length < HIGH_WATER / 2) this.#wakeEngine();
    return record;
  }

  /** The caller has left: nothing more is kept, and the engine never waits for room again. */
  leave(): void {
    this.#left = true;
    for (const record of this.#records) this.#dropped(record);
    this.#records.length = 0;
    this.#wakeEngine();
  }

  #dropped(record: OutputRecord): void {
    const { components, usd } = this.#boughtFor(record);
    if (components === 0) return;
    const paid = this.paidNotHandedOver;
    paid.records += 1;
    paid.components += components;
    paid.costUsd = Math.round((paid.costUsd + usd) * 1e6) / 1e6;
  }

  #wakeTaker(): void {
    const taker = this.#taker;
    this.#taker = undefined;
    taker?.();
  }

  #wakeEngine(): void {
    const room = this.#room;
    this.#room = undefined;
    room?.();
  }
}
