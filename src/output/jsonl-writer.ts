import { jsonRecord } from './json-record.js';
import type { OutputWriter } from './record-writer.js';
import type { Sink } from './text-sink.js';
import { WrittenRecords } from './written-records.js';

/** One JSON object a line: appendable, so a JSONL output can be resumed. */
export function createJsonlWriter(sink: Sink): OutputWriter {
  const written = new WrittenRecords(sink);
  return {
    failed: sink.failed,
    write: (record) => {
      const text = `${jsonRecord(record)}\n`;
      written.wrote(text, record);
      return sink.write(text);
    },
    close: () => sink.close(),
    unwritten: () => written.unwritten(),
  };
}
