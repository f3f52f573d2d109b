import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { OutputRecord } from '../model/record.js';
import { cannotWrite } from './sink.js';

/**
 * Records kept on disk until a later sheet can take them. A zip entry is written whole before the
 * next one starts, so with one sheet per endpoint only the first sheet is written as records come;
 * the others are filled from here once it is done, which keeps memory flat. Beside the output (a
 * temporary folder may be memory), as JSON lines.
 */
export interface Spool {
  write(record: OutputRecord): Promise<void> | undefined;
  /** Every record written, in order; call once writing is over. */
  replay(): AsyncIterable<OutputRecord>;
  remove(): Promise<void>;
}

/** `onFailure` hears of a failing write at once, not at the next record. */
export async function openSpool(path: string, onFailure: (error: unknown) => void): Promise<Spool> {
  const file = createWriteStream(path, { flags: 'w' });
  try {
    await once(file, 'open');
  } catch (error) {
    throw cannotWrite(error, path);
  }
  let failure: unknown;
  file.on('error', (error) => {
    failure ??= error;
    onFailure(cannotWrite(error, path));
  });
  let ended = false;
  return {
    write(record) {
      if (failure !== undefined) return Promise.reject(cannotWrite(failure, path));
      const line = `${JSON.stringify({ row: record.row, status: record.status, error: record.error, input: record.input, chunk: record.chunk })}\n`;
      return file.write(line)
        ? undefined
        : once(file, 'drain').then(
            () => undefined,
            (error: unknown) => Promise.reject(cannotWrite(error, path)),
          );
    },
    async *replay() {
      if (!ended) {
        ended = true;
        file.end();
        await once(file, 'close');
      }
      if (failure !== undefined) throw cannotWrite(failure, path);
      const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
      for await (const line of lines) yield JSON.parse(line) as OutputRecord;
    },
    async remove() {
      if (!ended) file.destroy();
      await rm(path, { force: true });
    },
  };
}
