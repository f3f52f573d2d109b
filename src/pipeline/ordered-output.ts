import type { OutputRecord } from '../output/record.js';
import type { RecordWriter } from '../output/open-output.js';
import type { RunStats } from './run-stats.js';

const INITIAL_SLOTS = 1024;

/**
 * Batches complete in any order; the output must follow the input. Records wait here until every
 * earlier row has its record, then go to the writer. Rows are numbered 1, 2, 3... without gaps,
 * because every input row yields exactly one record.
 *
 * Waiting records sit in a ring indexed by row number (a power-of-two size, grown when a record
 * arrives further ahead than it spans): a slot per row costs less than a hash map's entry, and
 * every record of a run passes through here.
 */
export class OrderedOutput {
  readonly #writer: RecordWriter;
  readonly #stats: RunStats;
  #slots: (OutputRecord | undefined)[] = new Array<OutputRecord | undefined>(INITIAL_SLOTS).fill(undefined);
  #waiting = 0;
  #next: number;

  constructor(writer: RecordWriter, stats: RunStats, firstRow = 1) {
    this.#writer = writer;
    this.#stats = stats;
    this.#next = firstRow;
  }

  /** Records held back, waiting for an earlier row. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Whether the next row's record is here, so that flush() has something to write. */
  get ready(): boolean {
    return this.#slots[this.#nextSlot()] !== undefined;
  }

  /** The next row to be written: every row before it is in the output. */
  get nextRow(): number {
    return this.#next;
  }

  add(record: OutputRecord): void {
    if (record.row - this.#next >= this.#slots.length) this.#grow(record.row - this.#next + 1);
    this.#slots[record.row & (this.#slots.length - 1)] = record;
    this.#waiting += 1;
  }

  /** Writes every record that is now in order, honouring the writer's backpressure. */
  async flush(): Promise<void> {
    // The slot is found afresh each time: records added while a write waits can grow the ring.
    for (let slot = this.#nextSlot(), record = this.#slots[slot]; record; slot = this.#nextSlot(), record = this.#slots[slot]) {
      this.#slots[slot] = undefined;
      this.#next += 1;
      this.#waiting -= 1;
      this.#stats.byStatus[record.status] += 1;
      const backpressure = this.#writer.write(record);
      if (backpressure) await backpressure;
    }
  }

  #nextSlot(): number {
    return this.#next & (this.#slots.length - 1);
  }

  #grow(span: number): void {
    let size = this.#slots.length * 2;
    while (size < span) size *= 2;
    const slots = new Array<OutputRecord | undefined>(size).fill(undefined);
    for (const record of this.#slots) if (record) slots[record.row & (size - 1)] = record;
    this.#slots = slots;
  }
}
