import type { CountedRecord, OutputRecord } from '../model/record.js';

/** Takes records in output order and writes each one whole; `close` finishes the document. */
export interface RecordWriter {
  /** As Sink.write: a promise only when the output needs a moment before the next record. */
  write(record: OutputRecord): Promise<void> | undefined;
  close(): Promise<void>;
  /**
   * The records handed to write() that are not in the file (WrittenRecords): after a failure, a
   * full disk, what was still buffered; none once close() succeeded. Absent where the writer
   * cannot tell (a workbook, written whole at the end).
   */
  unwritten?(): readonly CountedRecord[];
}

/** A writer to a stream, which can fail between writes (a reader closing the pipe). */
export interface OutputWriter extends RecordWriter {
  /** As Sink.failed: rejects with the OutputError as soon as the output fails; never resolves. */
  readonly failed: Promise<never>;
  /**
   * For an output that holds the run's summary (an xlsx workbook's `summary` sheet): called once,
   * after `close`, with the summary as `--report` has it; the output is complete only then.
   */
  finish?(summary: object): Promise<void>;
}
