import { PropdataError } from './propdata-error.js';

/**
 * The local store cannot be opened or written (locked too long, damaged, disk full, read-only).
 * Fatal: a run asked to keep its answers never goes on without them; the message names --no-store.
 */
export class StoreError extends PropdataError {
  constructor(message: string, cause?: unknown) {
    super('E_STORE', message, { cause });
  }
}
