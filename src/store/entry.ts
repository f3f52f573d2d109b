import type { Chunk } from '../model/chunk.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { RequestRecord } from './spend.js';
import type { Store } from './store.js';

/**
 * What one request leaves in the store: its spend, the windows its answer stated, and the answer
 * kept for reuse (none for an error). Applied whole, once: a request recorded already (same
 * account, time and run) is not recorded again.
 */
export interface StoreEntry {
  request: RequestRecord;
  windows: readonly ReportedWindow[];
  answer?: { key: string; sections: readonly string[]; chunk: Chunk };
}

/** Records an entry's request, windows and answer in one transaction, unless its request is recorded already. */
export function applyEntry(store: Store, { request, windows, answer }: StoreEntry): void {
  store.transaction(() => {
    if (store.hasRequest(request)) return;
    if (answer) store.answers(request.account).put(answer.key, answer.sections, answer.chunk, request.at);
    store.recordRequest(request);
    store.saveWindows(request.account, windows, request.at);
  });
}
