import type { OptionValues } from '../../options/option-spec.js';
import { BATCH_OPTIONS, CONNECTION_OPTIONS, ONE_OFF_OPTIONS, STORE_OPTIONS } from '../options.js';

/** Options every query command shares, after its identifier and parameter flags. */
export const QUERY_OPTIONS = [...ONE_OFF_OPTIONS, ...BATCH_OPTIONS, ...STORE_OPTIONS, ...CONNECTION_OPTIONS] as const;

/**
 * What a query command's action receives: the shared options, typed from their declarations, and
 * the identifier and parameter flags, which the catalog declares per command (`--address`,
 * `--add-beds`, and `--param name=value` beside them: options.ts paramOptions) and which arrive
 * under their catalog names' attribute keys (optionKey).
 */
export type QueryOptions = OptionValues<typeof QUERY_OPTIONS> & {
  readonly param?: Record<string, string>;
  readonly [catalogFlag: string]: unknown;
};

/** A query command given --input: a batch. */
export type BatchOptions = QueryOptions & { readonly input: string };
