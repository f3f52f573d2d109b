import { jsonRecord } from './json-record.js';
import type { OutputWriter } from './record-writer.js';
import type { Sink } from './text-sink.js';

/** One JSON object a line: appendable, so a JSONL output can be resumed. */
export function createJsonlWriter(sink: Sink): OutputWriter {
  return {
    failed: sink.failed,
    write: (record) => sink.write(`${jsonRecord(record)}\n`),
    close: () => sink.close(),
  };
}
