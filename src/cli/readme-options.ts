import type { OptionSpec } from '../options/option-spec.js';
import { SANDBOX_OPTIONS } from '../sandbox/options.js';
import { BATCH_OPTIONS, CONNECTION_OPTIONS, STORE_OPTIONS } from './options.js';

/**
 * The README's option tables, by the name in their `<!-- options: NAME -->` marker: rendered from
 * the same declarations as `--help` (test/options/readme-tables.test.ts fails when one is stale).
 */
export const README_OPTION_TABLES: Readonly<Record<string, readonly OptionSpec[]>> = {
  batch: BATCH_OPTIONS,
  store: STORE_OPTIONS,
  connection: CONNECTION_OPTIONS,
  sandbox: SANDBOX_OPTIONS,
};
