import { ENDPOINTS } from '../catalog/index.js';
import { UsageError } from '../errors/index.js';
import type { OptionSpec, OptionValues } from '../options/option-spec.js';

/** One fixed rate-limit window: at most `limit` components per `periodSeconds`. */
export interface RateWindow {
  limit: number;
  periodSeconds: number;
}

export interface SandboxOptions {
  host?: string;
  port?: number;
  key?: string;
  secret?: string;
  /** Several windows apply at once; [] turns rate limiting (and its headers) off. */
  rateLimits?: RateWindow[];
  /** Starting credit in USD. */
  credit?: number;
  /** List-price overrides in USD per component, by endpoint name (`property/value`). */
  prices?: Record<string, number>;
  failRate?: number;
  resetRate?: number;
  spurious429Rate?: number;
  latencyMs?: [number, number];
  /** Its time: `now` for its windows and dates, `sleep` for its latency (a test's fake clock; default the system's). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Seeds fault injection only: the data never depends on it. */
  seed?: string;
  /** A key the spec does not list gets a 400, instead of being ignored and named in a header. */
  strict?: boolean;
  /** Called once per request answered (or dropped): the foreground sandbox's request log. */
  onRequest?: (entry: SandboxRequestLog) => void;
}

/** One request as the sandbox saw it. */
export interface SandboxRequestLog {
  method: string;
  path: string;
  /** The status sent, or `reset` for a connection dropped on purpose (--reset-rate). */
  status: number | 'reset';
  elapsedMs: number;
}

export type ResolvedOptions = Required<SandboxOptions>;

export const DEFAULT_RATE_LIMITS: readonly RateWindow[] = [{ limit: 250, periodSeconds: 60 }];

/** What the sandbox is when nothing is said: its flags show these as their defaults. */
export const SANDBOX_DEFAULTS = { host: '127.0.0.1', port: 0, key: 'sandbox', secret: 'sandbox', credit: 200 } as const;

/** What the sandbox will do that a client meets: its windows, its credit, its faults. */
export function describeSandbox(settings: ResolvedOptions): string[] {
  const windows = settings.rateLimits.map((window) => `${window.limit} components/${window.periodSeconds}s`).join(', ');
  const faults = [
    settings.failRate > 0 ? `${settings.failRate * 100}% 5xx` : '',
    settings.resetRate > 0 ? `${settings.resetRate * 100}% dropped connections` : '',
    settings.spurious429Rate > 0 ? `${settings.spurious429Rate * 100}% spurious 429` : '',
    settings.latencyMs[1] > 0 ? `latency ${settings.latencyMs[0]}-${settings.latencyMs[1]} ms` : '',
    settings.strict ? 'strict (400 for keys the spec does not list)' : '',
  ].filter(Boolean);
  const prices = Object.keys(settings.prices);
  return [
    `rate limit: ${windows || 'off'}`,
    `credit:     ${settings.credit.toFixed(2)} USD${prices.length > 0 ? ` (prices overridden: ${prices.join(', ')})` : ' at list price'}`,
    `faults:     ${faults.join(', ') || 'none'}`,
  ];
}

export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = {
    host: options.host ?? SANDBOX_DEFAULTS.host,
    port: options.port ?? SANDBOX_DEFAULTS.port,
    key: options.key ?? SANDBOX_DEFAULTS.key,
    secret: options.secret ?? SANDBOX_DEFAULTS.secret,
    rateLimits: options.rateLimits ?? [...DEFAULT_RATE_LIMITS],
    credit: options.credit ?? SANDBOX_DEFAULTS.credit,
    prices: options.prices ?? {},
    failRate: options.failRate ?? 0,
    resetRate: options.resetRate ?? 0,
    spurious429Rate: options.spurious429Rate ?? 0,
    latencyMs: options.latencyMs ?? [0, 0],
    now: options.now ?? Date.now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    seed: options.seed ?? 'propdata-sandbox',
    strict: options.strict ?? false,
    onRequest: options.onRequest ?? (() => undefined),
  };
  for (const name of ['failRate', 'resetRate', 'spurious429Rate'] as const) rate(name, resolved[name]);
  for (const endpoint of Object.keys(resolved.prices)) price(endpoint, resolved.prices[endpoint]);
  if (!(resolved.credit >= 0)) throw new UsageError(`credit must be a number of USD >= 0, got ${resolved.credit}`);
  return resolved;
}

function rate(name: string, value: number): number {
  if (!(value >= 0 && value <= 1)) throw new UsageError(`${name} must be a fraction from 0 to 1, got ${value}`);
  return value;
}

function price(endpoint: string, value: number | undefined): void {
  if (!ENDPOINTS.some((known) => known.name === endpoint)) {
    throw new UsageError(`--price: unknown endpoint "${endpoint}" (use a catalog name such as property/value)`);
  }
  if (value === undefined || !(value >= 0)) throw new UsageError(`--price ${endpoint}: expected USD >= 0, got ${value}`);
}

function numberFrom(text: string, what: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`${what}: expected a number, got "${text}"`);
  return value;
}

/** `20/1,250/60`: 20 components per second and 250 per minute. `off` or `0` turns limits off. */
export function parseRateLimits(text: string): RateWindow[] {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'off' || trimmed === '0') return [];
  return trimmed.split(',').map((part) => {
    const match = /^(\d+)\s*\/\s*(\d+)$/.exec(part.trim());
    const limit = Number(match?.[1]);
    const periodSeconds = Number(match?.[2]);
    if (!match || limit < 1 || periodSeconds < 1) {
      throw new UsageError(`--rate-limit: expected limit/seconds pairs such as 20/1,250/60 (or off), got "${text}"`);
    }
    return { limit, periodSeconds };
  });
}

/** `200` (fixed) or `50-400` (uniform between the two), in milliseconds. */
export function parseLatency(text: string): [number, number] {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?)\s*)?$/.exec(text);
  if (!match) throw new UsageError(`--latency: expected milliseconds such as 200 or 50-400, got "${text}"`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min) throw new UsageError(`--latency: the maximum must not be below the minimum, got "${text}"`);
  return [min, max];
}

function parseFraction(flag: string) {
  return (text: string): number => {
    const value = numberFrom(text, flag);
    if (value < 0 || value > 1) throw new UsageError(`${flag}: expected a fraction from 0 to 1, got "${text}"`);
    return value;
  };
}

function parsePort(text: string): number {
  const value = numberFrom(text, '--port');
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new UsageError(`--port: expected 0 to 65535, got "${text}"`);
  return value;
}

export function parseCredit(text: string): number {
  const value = numberFrom(text, '--credit');
  if (value < 0) throw new UsageError(`--credit: expected USD >= 0, got "${text}"`);
  return value;
}

/** `--price property/value=0.5`, repeatable: collected into one record. */
function parsePrice(text: string, previous?: unknown): Record<string, number> {
  const at = text.indexOf('=');
  if (at <= 0) throw new UsageError(`--price: expected endpoint=USD such as property/value=0.5, got "${text}"`);
  const endpoint = text.slice(0, at).trim();
  const value = numberFrom(text.slice(at + 1), `--price ${endpoint}`);
  price(endpoint, value);
  return { ...(previous as Record<string, number> | undefined), [endpoint]: value };
}

/** The declaration type shared with the CLI's options (the CLI attaches these with commander). */
export type { OptionSpec } from '../options/option-spec.js';

const SANDBOX_FLAGS = [
  { flags: '--port <port>', description: 'port to listen on (0 picks a free one)', parse: parsePort, defaultValue: SANDBOX_DEFAULTS.port },
  { flags: '--host <host>', description: 'interface to listen on', defaultValue: SANDBOX_DEFAULTS.host },
  { flags: '--sandbox-key <key>', description: 'API key the sandbox accepts (test key: test_<key>)', defaultValue: SANDBOX_DEFAULTS.key },
  { flags: '--sandbox-secret <secret>', description: 'API secret the sandbox accepts', defaultValue: SANDBOX_DEFAULTS.secret },
  {
    flags: '--rate-limit <windows>',
    description: 'components per window in seconds, several at once: 20/1,250/60; off disables',
    parse: parseRateLimits,
  },
  { flags: '--credit <usd>', description: 'starting credit in USD', parse: parseCredit, defaultValue: SANDBOX_DEFAULTS.credit },
  { flags: '--price <endpoint=usd>', description: 'override a list price per component (repeatable)', parse: parsePrice },
  {
    flags: '--fail-rate <fraction>',
    description: 'share of requests answered 500/502/503 with an HTML page',
    parse: parseFraction('--fail-rate'),
  },
  {
    flags: '--reset-rate <fraction>',
    description: 'share of requests whose connection is dropped unanswered',
    parse: parseFraction('--reset-rate'),
  },
  { flags: '--latency <ms>', description: 'delay before answering: 200, or a range 50-400', parse: parseLatency },
  {
    flags: '--strict',
    description: 'answer 400 to keys the spec does not list (default: ignore them and name them in X-Sandbox-Ignored-Keys)',
  },
  {
    flags: '--spurious-429-rate <fraction>',
    description: 'share of requests answered 429 although under the limit',
    parse: parseFraction('--spurious-429-rate'),
  },
] as const satisfies readonly OptionSpec[];

/** The flags of `propdata sandbox`. */
export const SANDBOX_OPTIONS: readonly OptionSpec[] = SANDBOX_FLAGS;

/** What the `propdata sandbox` command's action receives, inferred from the declarations. */
export type SandboxFlagValues = OptionValues<typeof SANDBOX_FLAGS>;

/** The flags' values as commander delivers them, or as text (a programmatic caller's), each may be absent. */
export type SandboxFlagInput = { readonly [Name in keyof SandboxFlagValues]?: SandboxFlagValues[Name] | string | null };

/**
 * SandboxOptions from commander's parsed values (camel-cased flag names). Values that arrive as
 * text (defaults, programmatic callers) go through the same parsers as the flags.
 */
export function sandboxOptionsFrom(parsed: SandboxFlagInput): SandboxOptions {
  const options: SandboxOptions = {};
  const numeric = (value: number | string, parse: (text: string) => number) => parse(String(value));
  const {
    port,
    host,
    sandboxKey,
    sandboxSecret,
    rateLimit,
    credit,
    price: prices,
    failRate,
    resetRate,
    spurious429Rate,
    strict,
    latency,
  } = parsed;
  if (port != null) options.port = numeric(port, parsePort);
  if (host != null) options.host = host;
  if (sandboxKey != null) options.key = sandboxKey;
  if (sandboxSecret != null) options.secret = sandboxSecret;
  if (rateLimit != null) options.rateLimits = typeof rateLimit === 'string' ? parseRateLimits(rateLimit) : rateLimit;
  if (credit != null) options.credit = numeric(credit, parseCredit);
  if (prices != null) {
    const parsedPrices = typeof prices === 'string' ? parsePrice(prices) : prices;
    for (const [endpoint, value] of Object.entries(parsedPrices)) price(endpoint, value);
    options.prices = parsedPrices;
  }
  if (failRate != null) options.failRate = numeric(failRate, parseFraction('--fail-rate'));
  if (resetRate != null) options.resetRate = numeric(resetRate, parseFraction('--reset-rate'));
  if (spurious429Rate != null) options.spurious429Rate = numeric(spurious429Rate, parseFraction('--spurious-429-rate'));
  if (strict === true) options.strict = true;
  if (latency != null) options.latencyMs = typeof latency === 'string' ? parseLatency(latency) : latency;
  return options;
}
