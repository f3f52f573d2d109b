import { open } from 'node:fs/promises';
import { UsageError } from '../errors/index.js';

/**
 * Refuses to append to a CSV file whose header is not `header`, the one this run writes: the
 * records would not line up with the columns (after an upgrade whose catalog has other fields,
 * or an edit).
 */
export async function checkCsvHeader(path: string, header: string): Promise<void> {
  const expected = Buffer.from(header);
  const found = Buffer.alloc(expected.length);
  const file = await open(path, 'r');
  try {
    await file.read(found, 0, found.length, 0);
  } finally {
    await file.close();
  }
  if (!found.equals(expected)) {
    throw new UsageError(
      `${path} has another header than the one this run writes: the catalog changed with an upgrade, or the file was edited; run without --resume to start over`,
    );
  }
}
