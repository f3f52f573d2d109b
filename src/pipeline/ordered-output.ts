import type { CountedRecord, OutputRecord } from '../model/record.js';
import type { RunStats } from './run-stats.js';

const INITIAL_SLOTS = 1024;

/** Where records go in order (a writer of output/): a promise only when it needs a moment before the next one. */
export interface RecordSink {
  write(record: OutputRecord): Promise<void> | undefined;
}

/** Which rows this run writes: the `retry` rows of an earlier output (ascending), then every row from `startRow` on. */
export interface RowPlan {
  startRow: number;
  retry?: readonly number[];
}

/**
 * Batches complete in any order; the output must follow the input. Records wait here until every
 * earlier row has its record, then go to the writer at once: a paid answer is on its way to the
 * file as soon as its turn comes, not when the next input row is read. Every input row yields
 * exactly one record, so the rows to write are known in advance (RowPlan).
 *
 * Waiting records sit in a ring indexed by row number (a power-of-two size, grown when a record
 * arrives further ahead than it spans): a slot per row costs less than a hash map's entry, and
 * every record of a run passes through here.
 */
export class OrderedOutput {
  readonly #writer: RecordSink;
  readonly #stats: RunStats;
  readonly #retry: readonly number[];
  readonly #startRow: number;
  #retryAt = 0;
  #slots: (OutputRecord | undefined)[] = new Array<OutputRecord | undefined>(INITIAL_SLOTS).fill(undefined);
  #waiting = 0;
  #next: number;
  /** The write in progress: one at a time, so records reach the writer in order. */
  #flushing: Promise<void> = Promise.resolve();
  /** Why the writer failed (a full disk, a closed pipe): nothing more is written once it has. */
  #failure: unknown;
  /** The first row whose record the writer took but the file did not get (takeBack). */
  #lostFrom: number | undefined;
  /**
   * The store's writes as of the latest record added with one pending (add's `kept`), and how many
   * such records were added and how many the last wait covered: one wait covers every record added
   * before it, so a run waits once a write, not once a record.
   */
  #kept: Promise<void> = Promise.resolve();
  #keptAdded = 0;
  #keptAwaited = 0;
  /** A flush is due once the store's pending writes are done (flush never waits for the store itself). */
  #flushWhenKept = false;

  constructor(writer: RecordSink, stats: RunStats, plan: RowPlan = { startRow: 1 }) {
    this.#writer = writer;
    this.#stats = stats;
    this.#retry = plan.retry ?? [];
    this.#startRow = plan.startRow;
    this.#next = this.#retry[0] ?? plan.startRow;
  }

  /** Records held back, waiting for an earlier row. */
  get waiting(): number {
    return this.#waiting;
  }

  /** The writer's failure, once it has failed: the run stops on it (flush and finish never throw). */
  get failure(): unknown {
    return this.#failure;
  }

  /** Whether the next row's record is here, so that flush() has something to write. */
  get ready(): boolean {
    const record = this.#slots[this.#slot(this.#next)];
    return record !== undefined && !record.unsent;
  }

  /** The next row to be written: every row before it that this run writes is in the output. */
  get nextRow(): number {
    return this.#lostFrom !== undefined && this.#lostFrom < this.#next ? this.#lostFrom : this.#next;
  }

  /**
   * After the writer has closed, or failed: the records it handed on that never reached the file
   * (a full disk took what was still buffered) come off the run's counts, and nextRow goes back
   * to the first of them, so that the summary counts what the file holds.
   */
  takeBack(unwritten: readonly CountedRecord[]): void {
    for (const { row, status, unsent } of unwritten) {
      this.#stats.byStatus[status] -= 1;
      if (unsent) this.#stats.unsentWritten -= 1;
      this.#lostFrom = Math.min(this.#lostFrom ?? row, row);
    }
  }

  /**
   * Hands over a row's record. `kept`, for a record carrying an answer just bought, settles once the
   * store holds that answer. No record reaches the file until then (the rows around it wait with
   * it), so that a run killed between the two (kill -9) leaves the answer in the store, where any
   * later run finds it, rather than only in an output the next night's run replaces: a paid answer
   * is never bought twice.
   */
  add(record: OutputRecord, kept?: Promise<void>): void {
    if (record.row - this.#next >= this.#slots.length) this.#grow(record.row - this.#next + 1);
    this.#slots[this.#slot(record.row)] = record;
    this.#waiting += 1;
    if (kept) {
      this.#kept = kept;
      this.#keptAdded += 1;
    }
  }

  /**
   * Writes every record that is now in order, honouring the writer's backpressure. Records that
   * wait for the store (add's `kept`) are written by a flush of their own once it has kept them:
   * the caller (the run reading on) never waits for the store here.
   */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#writeReady(0, false));
    return this.#flushing;
  }

  /**
   * After the last record has been added: writes what is in order. After a stop, rows were never
   * sent; with `endsAtGap` (a store keeps every answer) the output ends before the first of them,
   * and the next run takes the answered rows after it from the store. Otherwise an unsent record is
   * written (as `not_sent`) where an answered row follows it, so that answer is not lost; what is
   * left unwritten is what the next run sends.
   */
  async finish(endsAtGap = false): Promise<void> {
    await this.#flushing;
    let last = 0;
    if (!endsAtGap) {
      let at = this.#retryAt;
      for (let row = this.#next, record = this.#peek(row); record; [row, at] = this.#following(row, at), record = this.#peek(row)) {
        if (!record.unsent) last = row;
      }
    }
    this.#flushing = this.#writeReady(last, true);
    await this.#flushing;
  }

  /**
   * Writes records in order while they are here. An unsent record waits (until finish() says
   * whether an answered row follows it) unless it is at or before `unsentThrough`. Records that wait
   * for the store are waited for with `waitForStore` (the run's end), else left to a later flush.
   */
  async #writeReady(unsentThrough: number, waitForStore: boolean): Promise<void> {
    // The slot is found afresh each time: records added while a write waits can grow the ring.
    for (
      let slot = this.#slot(this.#next), record = this.#slots[slot];
      record && (!record.unsent || record.row <= unsentThrough) && this.#failure === undefined;
      slot = this.#slot(this.#next), record = this.#slots[slot]
    ) {
      if (this.#keptAwaited !== this.#keptAdded) {
        if (waitForStore) {
          // Records added while this waits get their turn through the loop's fresh look at the slot.
          await this.#storeCaughtUp();
          continue;
        }
        if (!this.#flushWhenKept) {
          this.#flushWhenKept = true;
          void this.#storeCaughtUp().then(() => {
            this.#flushWhenKept = false;
            return this.flush();
          });
        }
        return;
      }
      this.#slots[slot] = undefined;
      [this.#next, this.#retryAt] = this.#following(this.#next, this.#retryAt);
      this.#waiting -= 1;
      this.#stats.byStatus[record.status] += 1;
      if (record.unsent) this.#stats.unsentWritten += 1;
      try {
        const backpressure = this.#writer.write(record);
        if (backpressure) await backpressure;
      } catch (error) {
        this.#failure = error;
      }
    }
  }

  /** Settles once the store has kept every answer handed over with a record so far (a failed store counts: it says so itself). */
  async #storeCaughtUp(): Promise<void> {
    const added = this.#keptAdded;
    try {
      await this.#kept;
    } catch {
      // A store that failed stops the run and says why; the records it was keeping are written all the same.
    }
    this.#keptAwaited = Math.max(this.#keptAwaited, added);
  }

  #peek(row: number): OutputRecord | undefined {
    const record = this.#slots[this.#slot(row)];
    return record?.row === row ? record : undefined;
  }

  /** The row written after `row` (at index `at` of the retried rows, while they last): the next retried row, else the next row. */
  #following(row: number, at: number): [number, number] {
    if (at < this.#retry.length) return [this.#retry[at + 1] ?? this.#startRow, at + 1];
    return [row + 1, at];
  }

  #slot(row: number): number {
    return row & (this.#slots.length - 1);
  }

  #grow(span: number): void {
    let size = this.#slots.length * 2;
    while (size < span) size *= 2;
    const slots = new Array<OutputRecord | undefined>(size).fill(undefined);
    for (const record of this.#slots) if (record) slots[record.row & (size - 1)] = record;
    this.#slots = slots;
  }
}
