import { jsonRecord } from './json-record.js';
import type { OutputWriter } from './record-writer.js';
import type { Sink } from './text-sink.js';
import { WrittenRecords } from './written-records.js';

/**
 * A JSON array, streamed: `[`, the records one a line, `]` on close. Records are never held in
 * memory, so the array is only valid once the run has closed it (hence: not resumable).
 */
export function createJsonWriter(sink: Sink): OutputWriter {
  let count = 0;
  const written = new WrittenRecords(sink);
  return {
    failed: sink.failed,
    write: (record) => {
      const text = `${count++ === 0 ? '[\n' : ',\n'}${jsonRecord(record)}`;
      written.wrote(text, record);
      return sink.write(text);
    },
    close: async () => {
      const end = count === 0 ? '[]\n' : '\n]\n';
      written.wrote(end);
      await sink.write(end);
      await sink.close();
    },
    unwritten: () => written.unwritten(),
  };
}
