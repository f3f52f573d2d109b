import type { OutputRecord } from '../output/record.js';
import type { RecordWriter } from '../output/open-output.js';
import type { RunStats } from './run-stats.js';

/**
 * Batches complete in any order; the output must follow the input. Records wait here until every
 * earlier row has its record, then go to the writer. Rows are numbered 1, 2, 3... without gaps,
 * because every input row yields exactly one record.
 */
export class OrderedOutput {
  readonly #writer: RecordWriter;
  readonly #stats: RunStats;
  readonly #waiting = new Map<number, OutputRecord>();
  #next: number;

  constructor(writer: RecordWriter, stats: RunStats, firstRow = 1) {
    this.#writer = writer;
    this.#stats = stats;
    this.#next = firstRow;
  }

  /** Records held back, waiting for an earlier row. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** The next row to be written: every row before it is in the output. */
  get nextRow(): number {
    return this.#next;
  }

  add(record: OutputRecord): void {
    this.#waiting.set(record.row, record);
  }

  /** Writes every record that is now in order, honouring the writer's backpressure. */
  async flush(): Promise<void> {
    for (let record = this.#waiting.get(this.#next); record; record = this.#waiting.get(this.#next)) {
      this.#waiting.delete(this.#next);
      this.#next += 1;
      this.#stats.byStatus[record.status] += 1;
      await this.#writer.write(record);
    }
  }
}
