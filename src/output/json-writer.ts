import { jsonRecord } from './json-record.js';
import type { OutputWriter } from './record-writer.js';
import type { Sink } from './text-sink.js';

/**
 * A JSON array, streamed: `[`, the records one a line, `]` on close. Records are never held in
 * memory, so the array is only valid once the run has closed it (hence: not resumable).
 */
export function createJsonWriter(sink: Sink): OutputWriter {
  let written = 0;
  return {
    failed: sink.failed,
    write: (record) => sink.write(`${written++ === 0 ? '[\n' : ',\n'}${jsonRecord(record)}`),
    close: async () => {
      await sink.write(written === 0 ? '[]\n' : '\n]\n');
      await sink.close();
    },
  };
}
