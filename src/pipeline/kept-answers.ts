import type { SendableItem } from '../batching/batch.js';
import type { Chunk } from '../model/chunk.js';
import type { Exchange } from './send-batch.js';

/**
 * What the run needs of a store of paid answers (the local store, or a shared one), behind which the
 * one rule is kept: an answer the account has paid for is never bought again while it is fresh
 * enough, whichever command, run or process asks for it. The pipeline asks it about items a block at
 * a time and hands it every answer; which sections count as fresh, and the claims that keep two jobs
 * from buying one item together, are its business.
 */
export interface KeptAnswers {
  /**
   * For each item (in order), what to do with it: write it from the store, buy the sections it lacks
   * (now claimed for this run), or wait while another job buys them.
   */
  resolve(items: readonly SendableItem[]): Promise<Resolution[]>;
  /**
   * A request's trace, handed over as soon as its answer is in (whatever its status): its spend, the
   * windows its answer stated, and the answers it brought. Kept in the background, in order; a store
   * that fails makes `failure` settle.
   */
  record(exchange: Exchange): void;
  /** The claims of items whose sections were not bought after all (failed, not sent): another job may buy them. */
  release(items: readonly { item: SendableItem; sections: readonly number[] }[]): void;
  /** Resolves once everything handed over is kept. */
  flush(): Promise<void>;
  /** Rejects with the store's failure (a full disk, a lost connection): the run stops, and stops keeping. */
  readonly failure: Promise<never>;
}

/** Billable sections the store answered instead of the service, and their list price. */
export interface Saving {
  sections: number;
  usd: number;
}

export type Resolution =
  /** Every section is kept: the chunk as the service sent it (meta as it was echoed then). */
  | { kind: 'kept'; chunk: Chunk; saving: Saving }
  /**
   * Buy the sections at these indices of the run's sections (ascending; claimed for this run); the
   * others are kept (`kept`, by chunk member) and go into the row's chunk with the answer.
   */
  | { kind: 'buy'; sections: readonly number[]; kept: Readonly<Record<string, unknown>>; saving: Saving }
  /** Another job is buying a section the item needs: ask again shortly. */
  | { kind: 'wait' };
