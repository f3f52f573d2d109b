import type { SendableItem } from '../batching/batch.js';
import type { Chunk } from '../model/chunk.js';
import type { Exchange } from './send-batch.js';

/**
 * What the run needs of a store of paid answers (the local store, or a shared one), behind which the
 * one rule is kept: an answer the account has paid for is never bought again while it is fresh
 * enough, whichever command, run or process asks for it. The pipeline asks it about items a block at
 * a time and hands it every answer; which sections count as fresh is its business.
 *
 * Two jobs never buy one section together (store/PROTOCOL.md): the pipeline claims a batch's
 * sections as it sends the batch, never before. A claim means "being sent now": nothing its holder
 * does afterwards waits for any other job, so a job waiting for another's answer can never be in a
 * cycle of waits.
 */
export interface KeptAnswers {
  /**
   * For each item (in order), what to do with it: write it from the store, buy the sections it lacks,
   * or wait while another job is sending them.
   */
  resolve(items: readonly SendableItem[]): Promise<Resolution[]>;
  /**
   * Claims the sections a batch is about to send (`force`: even from another job's live claim, for an
   * item that waited past its limit). For each item, whether they are now this run's: one that is not
   * (another job sends them now, or has just kept them) is looked up again, not sent.
   */
  claim(items: readonly ClaimRequest[]): Promise<boolean[]>;
  /**
   * A request's trace, handed over as soon as its answer is in (whatever its status): its spend, the
   * windows its answer stated, and the answers it brought. Kept in the background, in order; a store
   * that fails makes `failure` settle.
   */
  record(exchange: Exchange): void;
  /**
   * Settles once every answer recorded so far is in the store (or the store failed, which `failure`
   * says): the rows of those answers are written to the output only then. Absent: record() keeps an
   * answer before it returns.
   */
  written?(): Promise<void>;
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

/** A batch's item, the sections it is to buy (indices of the run's), and whether it may take another's live claim. */
export interface ClaimRequest {
  item: SendableItem;
  sections: readonly number[];
  force?: boolean;
}

/** What to buy of an item: the sections it lacks, and what the store keeps of the others. */
export interface Purchase {
  kind: 'buy';
  /** The sections to buy, by index of the run's sections (ascending). */
  sections: readonly number[];
  /** The others, kept (by chunk member): they go into the row's chunk with the answer. */
  kept: Readonly<Record<string, unknown>>;
  saving: Saving;
}

export type Resolution =
  /** Every section is kept: the chunk as the service sent it (meta as it was echoed then). */
  | { kind: 'kept'; chunk: Chunk; saving: Saving }
  | Purchase
  /** Another job is sending a section the item needs: ask again shortly (`purchase`: what to buy if it must be bought after all). */
  | { kind: 'wait'; purchase: Purchase };
