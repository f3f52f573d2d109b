import { ENDPOINTS } from '../catalog/index.js';
import { UsageError } from '../errors/index.js';

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
  now?: () => number;
  /** Seeds fault injection only: the data never depends on it. */
  seed?: string;
  /** A key the spec does not list gets a 400, instead of being ignored and named in a header. */
  strict?: boolean;
}

export type ResolvedOptions = Required<SandboxOptions>;

export const DEFAULT_RATE_LIMITS: readonly RateWindow[] = [{ limit: 250, periodSeconds: 60 }];

export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    key: options.key ?? 'sandbox',
    secret: options.secret ?? 'sandbox',
    rateLimits: options.rateLimits ?? [...DEFAULT_RATE_LIMITS],
    credit: options.credit ?? 200,
    prices: options.prices ?? {},
    failRate: options.failRate ?? 0,
    resetRate: options.resetRate ?? 0,
    spurious429Rate: options.spurious429Rate ?? 0,
    latencyMs: options.latencyMs ?? [0, 0],
    now: options.now ?? Date.now,
    seed: options.seed ?? 'propdata-sandbox',
    strict: options.strict ?? false,
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

function parseCredit(text: string): number {
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

/** A command-line option declared as data (the CLI attaches these with commander). */
export interface OptionSpec {
  flags: string;
  description: string;
  /** `previous` is the value collected so far, for repeatable options. */
  parse?: (value: string, previous?: unknown) => unknown;
  defaultValue?: unknown;
}

export const SANDBOX_OPTIONS: OptionSpec[] = [
  { flags: '--port <port>', description: 'port to listen on (0 picks a free one)', parse: parsePort, defaultValue: 0 },
  { flags: '--host <host>', description: 'interface to listen on', defaultValue: '127.0.0.1' },
  { flags: '--sandbox-key <key>', description: 'API key the sandbox accepts (test key: test_<key>)', defaultValue: 'sandbox' },
  { flags: '--sandbox-secret <secret>', description: 'API secret the sandbox accepts', defaultValue: 'sandbox' },
  {
    flags: '--rate-limit <windows>',
    description: 'components per window in seconds, several at once: 20/1,250/60; off disables',
    parse: parseRateLimits,
  },
  { flags: '--credit <usd>', description: 'starting credit in USD', parse: parseCredit, defaultValue: 200 },
  { flags: '--price <endpoint=usd>', description: 'override a list price per component (repeatable)', parse: parsePrice },
  { flags: '--fail-rate <fraction>', description: 'share of requests answered 500/502/503 with an HTML page', parse: parseFraction('--fail-rate') },
  { flags: '--reset-rate <fraction>', description: 'share of requests whose connection is dropped unanswered', parse: parseFraction('--reset-rate') },
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
];

/**
 * SandboxOptions from commander's parsed values (camel-cased flag names). Values that arrive as
 * text (defaults, programmatic callers) go through the same parsers as the flags.
 */
export function sandboxOptionsFrom(parsed: Record<string, unknown>): SandboxOptions {
  const options: SandboxOptions = {};
  const given = (name: string) => parsed[name] !== undefined && parsed[name] !== null;
  const asText = (name: string) => String(parsed[name]);
  const numeric = (name: string, parse: (text: string) => number) =>
    typeof parsed[name] === 'number' ? parse(String(parsed[name])) : parse(asText(name));
  if (given('port')) options.port = numeric('port', parsePort);
  if (given('host')) options.host = asText('host');
  if (given('sandboxKey')) options.key = asText('sandboxKey');
  if (given('sandboxSecret')) options.secret = asText('sandboxSecret');
  if (given('rateLimit')) {
    options.rateLimits = Array.isArray(parsed.rateLimit) ? (parsed.rateLimit as RateWindow[]) : parseRateLimits(asText('rateLimit'));
  }
  if (given('credit')) options.credit = numeric('credit', parseCredit);
  if (given('price')) {
    const prices = typeof parsed.price === 'string' ? parsePrice(parsed.price) : (parsed.price as Record<string, number>);
    for (const [endpoint, value] of Object.entries(prices)) price(endpoint, value);
    options.prices = prices;
  }
  if (given('failRate')) options.failRate = numeric('failRate', parseFraction('--fail-rate'));
  if (given('resetRate')) options.resetRate = numeric('resetRate', parseFraction('--reset-rate'));
  if (given('spurious429Rate')) options.spurious429Rate = numeric('spurious429Rate', parseFraction('--spurious-429-rate'));
  if (parsed.strict === true) options.strict = true;
  if (given('latency')) options.latencyMs = Array.isArray(parsed.latency) ? (parsed.latency as [number, number]) : parseLatency(asText('latency'));
  return options;
}
