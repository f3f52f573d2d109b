import type { OutputRecord } from './record.js';

/** Takes records in output order and writes each one whole; `close` finishes the document. */
export interface RecordWriter {
  write(record: OutputRecord): Promise<void>;
  close(): Promise<void>;
}
