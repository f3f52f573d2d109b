import type { Sink } from './sink.js';

/** Past this much unwritten text a write waits for it to go out: memory stays bounded. */
const MAX_PENDING_CHARS = 256 * 1024;

/**
 * Records handed over in one turn of the event loop (a batch's worth, usually) go to the stream
 * in one write. A write per record costs a trip through the stream each and a wait for 'drain'
 * every few records: a tenth of a 100,000-row run. Records are never split, so what reaches the
 * file is always whole records; close() writes what is still pending. Unwritten text is at most
 * one turn's records (or MAX_PENDING_CHARS while the stream drains), about what is in flight.
 */
export function coalescing(sink: Sink): Sink {
  let pending = '';
  let flushed: Promise<void> | undefined;
  let failure: unknown;
  const flush = async () => {
    const text = pending;
    pending = '';
    flushed = undefined;
    if (text !== '') await sink.write(text);
  };
  return {
    write(text) {
      if (failure !== undefined) return Promise.reject(failure);
      pending += text;
      // Nobody awaits this flush directly: its failure is kept for the next write or close.
      flushed ??= new Promise((resolve) => setImmediate(resolve)).then(flush).catch((error: unknown) => {
        failure ??= error;
      });
      if (pending.length < MAX_PENDING_CHARS) return Promise.resolve();
      return flushed.then(() => (failure === undefined ? undefined : Promise.reject(failure)));
    },
    async close() {
      await flushed;
      if (failure === undefined) await flush().catch((error: unknown) => (failure ??= error));
      if (failure !== undefined) throw failure;
      await sink.close();
    },
  };
}
