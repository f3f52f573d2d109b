import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

export interface CsvRawRecord {
  cells: string[];
  /** The record exactly as in the file, its newline included when it has one. */
  text: string;
  /** The byte offset just past the record. */
  end: number;
}

interface ParsedRecord {
  record: string[];
  raw: string;
  info: { bytes: number };
}

/**
 * The CSV records of a propdata output from byte `start` on (after its header), streamed, each
 * with its exact text and where it ends. The output writer ends every record with `\n` (a line
 * break inside a cell is quoted), so that is the only record delimiter; blank lines come through
 * as records so that the caller sees them. A parse failure is thrown after every record before
 * it has been yielded: the parser is driven chunk by chunk because a stream's async iterator
 * drops records still buffered when the parser fails at the end (an unclosed quote).
 */
export async function* csvRawRecords(path: string, start: number): AsyncGenerator<CsvRawRecord> {
  const parser = parse({ info: true, raw: true, record_delimiter: '\n', relax_column_count: true, skip_empty_lines: false });
  const ready: CsvRawRecord[] = [];
  let failure: Error | undefined;
  parser.on('data', ({ record, raw, info }: ParsedRecord) => ready.push({ cells: record, text: raw, end: start + info.bytes }));
  parser.on('error', (error: Error) => (failure ??= error));
  const ended = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('close', resolve);
  });
  try {
    for await (const chunk of createReadStream(path, { start }) as AsyncIterable<Buffer>) {
      await new Promise<void>((resolve) => parser.write(chunk, () => resolve()));
      yield* ready.splice(0);
      if (failure !== undefined) throw failure;
    }
    parser.end();
    await ended;
    yield* ready.splice(0);
    if (failure !== undefined) throw failure;
  } finally {
    parser.destroy();
  }
}
