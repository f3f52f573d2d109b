import { Readable } from 'node:stream';
import type { InputSource } from '../../src/input/input-source.js';
import type { InputRow } from '../../src/input/row.js';

export const FIXTURES = new URL('../fixtures/input/', import.meta.url).pathname;

/** A stream of the given bytes, cut into chunks of `chunkSize` to exercise chunk boundaries. */
export function bytes(content: string | Buffer, chunkSize = 64 * 1024): Readable {
  const buffer = typeof content === 'string' ? Buffer.from(content) : content;
  const chunks: Buffer[] = [];
  for (let at = 0; at < buffer.length; at += chunkSize) chunks.push(buffer.subarray(at, at + chunkSize));
  return Readable.from(chunks);
}

/** Everything a source yields, and the error that stopped it, if any. */
export async function readAll(source: InputSource): Promise<{ columns?: string[]; rows: InputRow[]; error?: unknown }> {
  const rows: InputRow[] = [];
  try {
    const columns = await source.columns;
    for await (const row of source.rows) rows.push(row);
    return { columns, rows };
  } catch (error) {
    return { rows, error };
  }
}
