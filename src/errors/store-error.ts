import { PropdataError } from './propdata-error.js';

/**
 * The local store cannot be opened or written (locked too long, damaged, disk full, read-only).
 * Fatal: a run asked to keep its answers never goes on without them; the message names --no-store.
 * `outage`: the store is unreachable or restarting, which waiting may mend (a run rides it out for
 * a while, store/outage.ts), as opposed to a refusal no wait changes (a login, a privilege, a full disk).
 *
 * `reason`: what went wrong alone, without the store's name or the way out, for a message that says those itself.
 */
export class StoreError extends PropdataError {
  readonly outage: boolean;
  readonly reason: string;

  constructor(message: string, cause?: unknown, { outage = false, reason = message }: { outage?: boolean; reason?: string } = {}) {
    super('E_STORE', message, { cause });
    this.outage = outage;
    this.reason = reason;
  }
}
