import { createReadStream } from 'node:fs';

export interface OutputTail {
  /** Complete records in the file (CSV: after the header). */
  records: number;
  /** Whether the CSV header is complete. */
  hasHeader: boolean;
  /** The length of the file up to the end of its last complete record: anything after is torn. */
  completeBytes: number;
}

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Finds where an interrupted output file stops being whole. Every record the writer emits ends
 * with a newline (outside quotes, for CSV), so the last such newline ends the last complete
 * record; a record cut short by a crash has none. Records are counted, not parsed: the output
 * holds rows 1, 2, 3... in order, so the count is also the last row written.
 */
export async function scanOutputTail(path: string, format: 'csv' | 'jsonl'): Promise<OutputTail> {
  let offset = 0;
  let inQuotes = false;
  let lineEnds = 0;
  let completeBytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE && format === 'csv') inQuotes = !inQuotes;
      else if (byte === NEWLINE && !inQuotes) {
        lineEnds += 1;
        completeBytes = offset + i + 1;
      }
    }
    offset += chunk.length;
  }
  if (format === 'jsonl') return { records: lineEnds, hasHeader: true, completeBytes };
  return { records: Math.max(0, lineEnds - 1), hasHeader: lineEnds > 0, completeBytes };
}
