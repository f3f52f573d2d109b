import type { CountedRecord, OutputRecord } from '../model/record.js';
import type { Sink } from './text-sink.js';

/** Settled records are dropped from the front in one splice once this many have gathered. */
const COMPACT_AT = 1024;

/**
 * The records a writer handed to its sink that are not in the file yet: their last byte beyond
 * the bytes the file has taken (Sink.writtenBytes). Each is kept only until the file has it (a
 * buffer's worth at most), so that after a failure, a full disk, the run can count what the file
 * holds rather than what it was handed. A sink that cannot tell (stdout) keeps none.
 */
export class WrittenRecords {
  readonly #sink: Sink;
  #handedBytes = 0;
  readonly #pending: { end: number; record: CountedRecord }[] = [];
  #head = 0;

  constructor(sink: Sink) {
    this.#sink = sink;
  }

  /** `text` handed to the sink, in the order it was: `record`'s, or the document's own (a header, a bracket). */
  wrote(text: string, record?: OutputRecord): void {
    if (!this.#sink.writtenBytes) return;
    this.#handedBytes += Buffer.byteLength(text);
    if (record) {
      const { row, status, unsent } = record;
      this.#pending.push({ end: this.#handedBytes, record: { row, status, ...(unsent ? { unsent } : {}) } });
    }
    this.#settle();
  }

  /** The records handed whose bytes the file has not taken: none once the sink has closed cleanly. */
  unwritten(): CountedRecord[] {
    if (!this.#sink.writtenBytes) return [];
    this.#settle();
    return this.#pending.slice(this.#head).map((pending) => pending.record);
  }

  #settle(): void {
    const written = this.#sink.writtenBytes!();
    while (this.#head < this.#pending.length && this.#pending[this.#head]!.end <= written) this.#head += 1;
    if (this.#head >= COMPACT_AT) {
      this.#pending.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
