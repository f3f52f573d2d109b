import type { Level } from '../catalog/index.js';
import type { BatchRun } from './batch-run.js';
import type { BatchOptions, CallOptions } from './client-options.js';
import type { EndpointName, ItemTypes, LevelOf, ParamTypes, ResultChunk } from './result-types.js';

/** Items, in memory or produced as they are read (an async generator over a file, a query's rows). */
export type Items<Item> = Iterable<Item> | AsyncIterable<Item>;

/** What one item of endpoint `Name` carries: its level's identifiers, meta, and the endpoint's parameters. */
export type ItemFor<Name extends EndpointName> = ItemTypes[LevelOf<Name>] & ParamTypes[Name];

/** Several endpoints' parameters as one item takes them. */
type AllParams<Names extends EndpointName> = (Names extends unknown ? (params: ParamTypes[Names]) => void : never) extends (
  params: infer Both,
) => void
  ? Both
  : never;

/**
 * One endpoint, or one mget of several: call it with one item, or `.batch(items)` for many.
 *
 * The call resolves to the chunk for one item (`chunk['property/value'].result.value.price_mean`
 * once `api_code` is 0). A section's api_code is data (0: answered, 204: no content); what stops
 * the call is thrown: a named PropdataError (AuthError, ForbiddenError, CreditExhaustedError,
 * BudgetReachedError, QuotaWaitError, UsageError for an item that cannot be sent, ItemFailedError
 * when the service or the network failed it after the retries).
 */
export interface Call<Item, Chunk> {
  (item: Item, options?: CallOptions): Promise<Chunk>;
  /** Records for many items, in input order (BatchRun). */
  batch(items: Items<Item>, options?: BatchOptions & { columns?: undefined }): BatchRun<Chunk>;
  /** Rows with other column names, read through `options.columns` (`{ street: 'address' }`). */
  batch(
    items: Items<Readonly<Record<string, unknown>>>,
    options: BatchOptions & { columns: Readonly<Record<string, string>> },
  ): BatchRun<Chunk>;
}

/** One endpoint (`client.property.value`). */
export type EndpointCall<Name extends EndpointName> = Call<ItemFor<Name>, ResultChunk<Name>>;

/** The property endpoints an mget can name. */
export type MgetComponent = Extract<EndpointName, `property/${string}`>;

/** What one item of an mget of `Names` carries. */
export type MgetItem<Names extends MgetComponent> = ItemTypes['property'] & Partial<AllParams<Names>>;

/** An mget of some components (`client.mget(['property/value', 'property/rental_value'])`). */
export type MgetCall<Names extends MgetComponent> = Call<MgetItem<Names>, ResultChunk<Names>>;

/** `client.property.value`, `client.block.crime`...: every catalog endpoint of a level, by its target. */
export type LevelCalls<L extends Level> = {
  readonly [Name in EndpointName as Name extends `${L}/${infer Target}` ? Target : never]: EndpointCall<Name>;
};

/** Every level's calls (`client.property`, `client.block`...). */
export type Levels = { readonly [L in Level]: LevelCalls<L> };

/** Makes one endpoint's call from its name (level-calls.ts calls it for each). */
export type MakeCall = <Name extends EndpointName>(name: Name) => EndpointCall<Name>;

/** A client: one member per level, `mget`, and `close`. */
export type Client = Levels & {
  /**
   * Several property endpoints per item in one component_mget: each item costs one component per
   * endpoint, and only the sections the store lacks are bought.
   */
  mget<Names extends MgetComponent>(components: readonly Names[]): MgetCall<Names>;
  mget<Names extends MgetComponent>(
    components: readonly Names[],
    item: MgetItem<Names>,
    options?: CallOptions,
  ): Promise<ResultChunk<Names>>;
  /** Ends the client's connections (and lets the process exit); calls made after it connect again. */
  close(): Promise<void>;
};
