import type { Sink } from './text-sink.js';

/** Past this much unwritten text a write waits for it to go out: memory stays bounded. */
const MAX_PENDING_CHARS = 256 * 1024;

/**
 * Records handed over in one turn of the event loop (a batch's worth, usually) go to the stream
 * in one write. A write per record costs a trip through the stream each and a wait for 'drain'
 * every few records: a tenth of a 100,000-row run. One flush runs at a time: while it waits for
 * the stream, later records gather in `pending` for its next round, so there is never more than
 * one wait for 'drain'. Records are never split, so what reaches the file is always whole
 * records; close() writes what is still pending.
 */
export function coalescing(sink: Sink): Sink {
  let pending = '';
  let flushing: Promise<void> | undefined;
  let failure: Error | undefined;
  const flushAll = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    while (pending !== '') {
      const text = pending;
      pending = '';
      await sink.write(text);
    }
  };
  const startFlush = (): Promise<void> =>
    (flushing ??= flushAll()
      .catch((error: unknown) => {
        // Nobody awaits a flush directly: its failure is kept for the next write or close.
        failure ??= error instanceof Error ? error : new Error(String(error));
      })
      .finally(() => {
        flushing = undefined;
      }));
  const failed = () => (failure === undefined ? undefined : Promise.reject(failure));
  return {
    failed: sink.failed,
    ...(sink.writtenBytes ? { writtenBytes: sink.writtenBytes } : {}),
    write(text) {
      if (failure !== undefined) return Promise.reject(failure);
      pending += text;
      const flush = startFlush();
      return pending.length < MAX_PENDING_CHARS ? undefined : flush.then(failed);
    },
    async close() {
      while (flushing) await flushing;
      if (failure === undefined && pending !== '') await startFlush();
      if (failure !== undefined) throw failure;
      await sink.close();
    },
  };
}
