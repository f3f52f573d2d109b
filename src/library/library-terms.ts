import { PropdataError } from '../errors/index.js';
import type { ClientOptions } from './client-options.js';

/**
 * The CLI's flags the engine's messages name, as a library caller knows them: the client's
 * options (`--max-wait` is `maxWait`, `--no-proxy-env` is `proxy: false`), and `startSandbox()` for `--sandbox`.
 */
const OPTION_OF_FLAG: Readonly<Record<string, keyof ClientOptions | 'startSandbox()' | 'proxy: false'>> = {
  '--key': 'key',
  '--secret': 'secret',
  '--base-url': 'baseUrl',
  '--store': 'store',
  '--max-age': 'maxAge',
  '--store-wait': 'storeWait',
  '--max-retries': 'maxRetries',
  '--max-wait': 'maxWait',
  '--timeout': 'timeout',
  '--max-components': 'maxComponents',
  '--max-cost': 'maxCost',
  '--max-cost-month': 'maxCostMonth',
  '--price': 'prices',
  '--batch-size': 'batchSize',
  '--concurrency': 'concurrency',
  '--rate': 'rate',
  '--sandbox': 'startSandbox()',
  '--no-proxy-env': 'proxy: false',
};

/** Where the CLI's messages send a user to a command; a library caller looks at the client's options. */
const CLI_HINTS: readonly [RegExp, string][] = [
  [/ \(propdata config list\)/g, " (the client's key and secret options, or PROPDATA_API_KEY and PROPDATA_API_SECRET)"],
];

/**
 * `error` as a library caller reads it: its message names the client's options rather than the
 * CLI's flags (the engine words its conditions once, in the CLI's terms). Anything else passes.
 */
export function inLibraryTerms<E>(error: E): E {
  if (!(error instanceof PropdataError)) return error;
  let message = error.message.replace(/(?<![\w-])--[a-z]+(?:-[a-z]+)*/g, (flag) => OPTION_OF_FLAG[flag] ?? flag);
  for (const [hint, instead] of CLI_HINTS) message = message.replace(hint, instead);
  error.message = message;
  return error;
}
