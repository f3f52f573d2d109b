import { DEFAULT_RATE_LIMITS, parseCredit, parseRateLimits, SANDBOX_DEFAULTS } from '../sandbox/options.js';
import { parseDelimiter } from '../input/delimiter.js';
import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_MAX_WAIT_MS } from '../policy/policy.js';
import { JOB_DEFAULTS } from '../engine/job-defaults.js';
import { CONNECTION_SETTINGS } from '../config/settings.js';
import { findEndpoint, LEVEL_SPECS, MAX_ITEMS_PER_REQUEST, META, type Endpoint, type Level, type Param } from '../catalog/index.js';
import type { OptionSpec } from '../options/option-spec.js';
import { parseDuration } from '../options/duration.js';

const DEFAULT_SANDBOX_WINDOWS = DEFAULT_RATE_LIMITS.map((window) => `${window.limit}/${window.periodSeconds}`).join(',');

// Commands are assembled from lists of option declarations (options/option-spec.ts). Each list is
// declared `as const satisfies readonly OptionSpec[]`, so that OptionValues<typeof LIST> is the
// type its handler receives. Defaults come from the modules that own them.

/** `--param-name`: the flag spelling of a catalog name. */
export const flagName = (name: string) => name.replace(/_/g, '-');

/** The key under which a catalog name's flag value arrives: commander's attributeName() (`block_id`: `blockId`). */
export const optionKey = (name: string) => new Option(`--${flagName(name)}`).attributeName();

/** `15m` for 900000: a duration as the flags take it, for help texts. */
export function durationText(ms: number): string {
  const [unit, size] = (
    [
      ['d', 86_400_000],
      ['h', 3_600_000],
      ['m', 60_000],
    ] as const
  ).find(([, span]) => ms % span === 0) ?? ['s', 1_000];
  return `${ms / size}${unit}`;
}

const envOf = (name: (typeof CONNECTION_SETTINGS)[number]['name']) => CONNECTION_SETTINGS.find((setting) => setting.name === name)!.env;

export function integerIn(min: number, max: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got "${value}"`);
    }
    return number;
  };
}

export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return number;
}

/** `90s`, `15m`, `2h`, `1d`, or plain seconds: a duration in milliseconds. */
export function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined)
    throw new InvalidArgumentError(`expected a duration such as 90s, 15m or 2h (plain numbers are seconds), got "${value}"`);
  return ms;
}

/** `30d` (that long ago), a UTC date `2026-11-01` or an ISO time: a moment in the past, epoch milliseconds. */
export function pastTime(value: string): number {
  const text = value.trim();
  const date = /^\d{4}-\d{2}-\d{2}([T ].*)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isFinite(date)) return date;
  try {
    return Date.now() - duration(text);
  } catch {
    throw new InvalidArgumentError(`expected a time back such as 30d or 12h, or a date such as 2026-11-01, got "${value}"`);
  }
}

/** `name=value`, repeatable, collected into an object. */
function keyValue(value: string, previous: unknown): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`expected name=value, got "${value}"`);
  return { ...(previous as Record<string, string> | undefined), [value.slice(0, at).trim()]: value.slice(at + 1) };
}

/** The credentials flags alone: which account is meant, nothing about talking to it (`usage`, `store clear`). */
export const ACCOUNT_OPTIONS = [
  { flags: '--key <key>', description: 'API key: this flag, else the environment variable, else the stored config', env: envOf('key') },
  {
    flags: '--secret <secret>',
    description: 'API secret: this flag, else the environment variable, else the stored config',
    env: envOf('secret'),
  },
  {
    flags: '--secret-file <file>',
    description: 'read the API secret from this file instead: unlike --secret, not on the command line for other users to see',
  },
  {
    flags: '--base-url <url>',
    description: 'service base address: this flag, else the environment variable, else the stored config',
    env: envOf('base-url'),
  },
  { flags: '--sandbox', description: 'run against the built-in sandbox (synthetic data, no account needed)' },
  {
    flags: '--sandbox-rate-limit <windows>',
    description: `with --sandbox: its rate limit, components per window in seconds (20/1,250/60; off disables; default ${DEFAULT_SANDBOX_WINDOWS})`,
    parse: parseRateLimits,
  },
  {
    flags: '--sandbox-credit <usd>',
    description: `with --sandbox: its starting credit in USD (default ${SANDBOX_DEFAULTS.credit}, which buys ${Math.floor(SANDBOX_DEFAULTS.credit / findEndpoint('property/value')!.price)} property/value answers at list price)`,
    parse: parseCredit,
  },
] as const satisfies readonly OptionSpec[];

/** Connection options, accepted by every command that talks to the service. */
export const CONNECTION_OPTIONS = [
  ...ACCOUNT_OPTIONS,
  {
    flags: '--timeout <seconds>',
    description:
      'deadline for a whole response, body included; a POST that times out after being sent may have been charged (counted in the summary)',
    parse: positiveNumber,
    defaultValue: JOB_DEFAULTS.timeoutMs / 1000,
  },
  {
    flags: '--max-retries <n>',
    description: 'retries for 5xx, timeouts and dropped connections',
    parse: integerIn(0, 20),
    defaultValue: JOB_DEFAULTS.maxRetries,
  },
  {
    flags: '--max-wait <duration>',
    description: `longest wait for the rate limit to reset (90s, 15m, 2h; plain numbers are seconds); beyond it a batch stops, resumable (exit 5). Default ${durationText(DEFAULT_MAX_WAIT_MS.oneOff)} for one item, ${durationText(DEFAULT_MAX_WAIT_MS.batch)} for a batch`,
    parse: duration,
  },
  {
    flags: '--no-proxy-env',
    description:
      'reach the service directly: without it, HTTPS_PROXY (an https service) and HTTP_PROXY name the forward proxy requests go through, NO_PROXY the hosts that skip it',
  },
  {
    flags: '--verbose',
    description: 'log each request (method, path, items, status, timing, headers; never credentials) and stack traces',
  },
] as const satisfies readonly OptionSpec[];

/**
 * `--verbose` on a command that sends nothing (store, usage, config...): main() prints an
 * unexpected error's stack trace with it, and suggests it on every command (program.ts adds it
 * wherever a command has no --verbose of its own).
 */
export const STACK_TRACE_OPTION = {
  flags: '--verbose',
  description: 'with an unexpected error, print its stack trace',
} as const satisfies OptionSpec;

export const ONE_OFF_OPTIONS = [
  { flags: '--json', description: 'print the JSON chunks exactly as received (the default when stdout is not a terminal)' },
] as const satisfies readonly OptionSpec[];

export const BATCH_OPTIONS = [
  {
    flags: '-i, --input <file>',
    description: 'CSV (header row), JSONL or .xlsx file of items, "-" for stdin (not for a workbook): turns the query into a batch job',
  },
  { flags: '-o, --output <file>', description: 'where to write one record per input item (default stdout)' },
  {
    flags: '--format <format>',
    description: 'output format (default from the output extension, else csv)',
    choices: ['csv', 'json', 'jsonl', 'xlsx'],
  },
  {
    flags: '--input-format <format>',
    description: 'input format (default from the input extension; stdin is sniffed)',
    choices: ['csv', 'jsonl', 'xlsx'],
  },
  { flags: '--sheet <name|n>', description: 'the sheet of an xlsx input to read, by name or position (default the first)' },
  {
    flags: '--delimiter <char>',
    description: "a CSV input's field delimiter: ; | or tab (default: tab for .tsv, else found from the header line)",
    parse: parseDelimiter,
  },
  {
    flags: '--encoding <name>',
    description:
      "a CSV input's character encoding: utf-8, windows-1252, utf-16le... (default: a byte order mark's, else utf-8 if the file is, else windows-1252)",
  },
  {
    flags: '--sheets <layout>',
    description: 'xlsx output: "endpoint" puts each endpoint on its own sheet, keyed by the input columns and _row',
    choices: ['endpoint'],
  },
  {
    flags: '--short-names',
    description:
      'xlsx output: columns named in words (value_price_mean; price_mean on a --sheets endpoint sheet) rather than by dotted path',
  },
  { flags: '--map <column=identifier>', description: 'read an identifier from a column with another name (repeatable)', parse: keyValue },
  { flags: '--meta-column <name>', description: 'column sent as meta with each item and echoed back (default: a column named meta)' },
  {
    flags: '--batch-size <n>',
    description: `items per POST, at most ${MAX_ITEMS_PER_REQUEST}`,
    parse: integerIn(1, MAX_ITEMS_PER_REQUEST),
    defaultValue: JOB_DEFAULTS.batchSize,
  },
  {
    flags: '--concurrency <n>',
    description: 'requests in flight at once',
    parse: integerIn(1, 32),
    defaultValue: JOB_DEFAULTS.concurrency,
  },
  {
    flags: '--rate <components>',
    description: 'components per minute until the service reports its limits',
    parse: positiveNumber,
    defaultValue: JOB_DEFAULTS.ratePerMinute,
  },
  {
    flags: '--report <file>',
    description:
      'also write the end-of-run summary to this file as JSON (outcome "running" from the start, so a killed run never leaves an earlier "completed")',
  },
  {
    flags: '--resume',
    description:
      'append to the output an interrupted run left, instead of writing it afresh (an output it cannot continue is written afresh, saying why)',
  },
  { flags: '--no-dedupe', description: 'send identical items once each time they appear (deduplication is on by default)' },
  { flags: '--dry-run', description: 'read and validate the input, print rows, components, requests, time and cost; send nothing' },
  {
    flags: '--max-components <n>',
    description: 'stop before the run would use more components than this',
    parse: integerIn(1, Number.MAX_SAFE_INTEGER),
  },
  { flags: '--max-cost <usd>', description: 'stop before the run would cost more than this at list price', parse: positiveNumber },
  { flags: '--price <endpoint=usd>', description: 'list price override for estimates and --max-cost (repeatable)', parse: keyValue },
  {
    flags: '--excel',
    description:
      'CSV for spreadsheets: UTF-8 BOM, and cells that would run as formulas neutralised. It guards formulas, not zeros: a spreadsheet still opens ZIP 06040 as 6040; --format xlsx keeps identifiers as text',
  },
  {
    flags: '-q, --quiet',
    description:
      'no progress or notes on stderr; of a run that completes, one line of its summary (what the output holds, what was bought at what cost, what the store answered), the whole summary otherwise (invalid rows, failures, a stop)',
  },
] as const satisfies readonly OptionSpec[];

/**
 * The local store (answers, spend, rate limits): where it is and what a run may take from it. Batch
 * runs take all four; `usage` and `store` only --store.
 */
const STORE_FILE_OPTION = {
  flags: '--store <file|url>',
  description:
    'the store of answers, spend and rate limits: a file, or postgres://user@host/db to share it between machines (default: config store, else $PROPDATA_HOME/propdata.db)',
  env: 'PROPDATA_STORE',
} as const satisfies OptionSpec;

export const STORE_OPTIONS = [
  STORE_FILE_OPTION,
  { flags: '--no-store', description: 'use no store: nothing is reused, spend and rate limits are not remembered' },
  {
    flags: '--max-age <duration>',
    description:
      'answer a row from the store when every section it needs is younger than this (90m, 12h, 30d; default: config max-age, else never)',
    parse: duration,
  },
  {
    flags: '--max-cost-month <usd>',
    description: "stop before the account's cost this UTC month, at list price, would pass this (default: config max-cost-month)",
    parse: positiveNumber,
  },
  {
    flags: '--store-wait <duration>',
    description: `how long a batch waits for a store that stopped answering (a database restarting, failing over) before it stops; sending pauses meanwhile, and what is answered is kept on this machine (default ${durationText(JOB_DEFAULTS.storeWaitMs)})`,
    parse: duration,
  },
] as const satisfies readonly OptionSpec[];

/** `usage` and `store` work on a store, never without one: --store FILE alone. */
export const STORE_FILE_OPTIONS = [STORE_FILE_OPTION] as const satisfies readonly OptionSpec[];

/** `--zip` for `--zipcode`: the spelling people type first (commander's two long flags: the first is the alias). */
const FLAG_ALIASES: Readonly<Record<string, string>> = { zipcode: '--zip' };

/** `--address`, `--zipcode`, `--block-id`... for a level, plus `--meta`. */
export function identifierOptions(levels: readonly Level[]): OptionSpec[] {
  const identifiers = new Map<string, string>();
  for (const level of levels) {
    for (const identifier of LEVEL_SPECS[level].identifiers) identifiers.set(identifier.name, identifier.description);
  }
  identifiers.set(META.name, META.description);
  return [...identifiers].map(([name, description]) => {
    const alias = FLAG_ALIASES[name];
    return { flags: `${alias ? `${alias}, ` : ''}--${flagName(name)} <value>`, description };
  });
}

function describeParam(param: Param): string {
  const facts = [
    param.required ? 'required' : undefined,
    param.enum ? `one of ${param.enum.join(', ')}` : undefined,
    param.default ? `default ${param.default}` : undefined,
  ].filter(Boolean);
  return facts.length > 0 ? `${param.description} (${facts.join('; ')})` : param.description;
}

/** One flag per endpoint parameter (`--add-beds 1`), plus `--param name=value` for anything else. */
export function paramOptions(endpoints: readonly Endpoint[]): OptionSpec[] {
  const params = new Map<string, Param>();
  for (const endpoint of endpoints) for (const param of endpoint.params) params.set(param.name, param);
  params.delete('components');
  return [
    ...[...params.values()].map((param) => ({ flags: `--${flagName(param.name)} <${param.type}>`, description: describeParam(param) })),
    { flags: '--param <name=value>', description: 'any other request parameter (repeatable)', parse: keyValue },
  ];
}
