import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { OutputError } from '../errors/index.js';
import { coalescing } from './coalescing-sink.js';
import type { Sink } from './text-sink.js';

/** The one-line error for an output that cannot be written. `where` is a path or "to stdout". */
export function cannotWrite(error: unknown, where: string): OutputError {
  const code = (error as { code?: string }).code;
  const reasons: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EACCES: 'permission denied',
    EISDIR: 'it is a directory',
    ENOENT: 'its directory does not exist',
    EPIPE: 'the reader closed the pipe (EPIPE); the output is partial',
  };
  const reason = (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
  return new OutputError(`cannot write ${where}: ${reason}`, error);
}

function streamSink(stream: Writable, where: string, owned: boolean, writtenBytes?: () => number): Sink {
  let failure: OutputError | undefined;
  const failureNow = () => failure;
  let fail!: (error: OutputError) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  // Nobody has to listen: a run that never asks must not die of an unhandled rejection.
  failed.catch(() => undefined);
  stream.on('error', (error) => {
    failure ??= cannotWrite(error, where);
    fail(failure);
  });
  return {
    failed,
    ...(writtenBytes ? { writtenBytes } : {}),
    async write(text) {
      if (failure) throw failure;
      // once() rejects on 'error', so no second listener is needed (one per wait would leak).
      if (!stream.write(text)) await once(stream, 'drain').catch((error: unknown) => Promise.reject(failure ?? cannotWrite(error, where)));
    },
    async close() {
      if (failure) throw failure;
      if (owned) {
        stream.end();
        await once(stream, 'close').catch(() => undefined);
      } else if (stream.writableNeedDrain) {
        await once(stream, 'drain').catch(() => undefined);
      }
      // The stream's 'error' may have come while it closed: read the failure afresh.
      const late = failureNow();
      if (late) throw late;
    },
  };
}

/** A file (`append` continues a resumed one), or `stdout` when path is absent or `-`. */
export async function openSink(path: string | undefined, stdout: Writable, append: boolean): Promise<Sink> {
  if (path === undefined || path === '-') return coalescing(streamSink(stdout, 'to stdout', false));
  const file = createWriteStream(path, { flags: append ? 'a' : 'w' });
  try {
    await once(file, 'open');
  } catch (error) {
    throw cannotWrite(error, path);
  }
  // A file stream counts the bytes each write put in the file (a part of one that filled the disk too).
  return coalescing(streamSink(file, path, true, () => file.bytesWritten));
}
