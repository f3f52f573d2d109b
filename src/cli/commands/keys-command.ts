import { InvalidArgumentError, type Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { hashSecret, keyNameProblem, newSecret } from '../../gateway/key-secrets.js';
import { parseKeyEndpoints } from '../../gateway/key-endpoints.js';
import type { OptionSpec, OptionValues } from '../../options/option-spec.js';
import type { ClientKey, Store } from '../../store/index.js';
import type { KeyChanges } from '../../store/key-store.js';
import { monthOf } from '../../store/spend.js';
import { parseDuration } from '../../options/duration.js';
import { GATEWAY_WAITS } from '../../policy/policy.js';
import { addOptions } from '../add-options.js';
import { terminalWidth } from '../io.js';
import { positiveNumber, STORE_FILE_OPTIONS } from '../options.js';
import type { CommandContext } from './command-context.js';
import { textTable } from './text-table.js';

/** What `keys set` is given to remove a setting (none, all, never): commander turns a parser's null into ''. */
const CLEARED = Symbol('cleared');

/** A parser of an option that `keys set` may also clear with `word`. */
const orCleared =
  <T>(word: string, parse: (value: string) => T) =>
  (value: string): T | typeof CLEARED =>
    value === word ? CLEARED : parse(value);

/** A `keys set` value as the store takes it: null to remove it. */
const changeOf = <T>(value: T | typeof CLEARED): T | null => (value === CLEARED ? null : value);

const endpointList = (value: string) => {
  try {
    return parseKeyEndpoints(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

/** An expiry: a date or time (2027-01-31, 2027-01-31T18:00Z), or a duration from now (90d). */
function expiryAt(value: string): number {
  const after = parseDuration(value);
  if (after !== undefined && /[a-z]$/i.test(value.trim())) return Date.now() + after;
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new InvalidArgumentError(`expected a date (2027-01-31), a time (2027-01-31T18:00Z) or a duration from now (90d), got "${value}"`);
  return at;
}

function perMinute(value: string): number {
  const rate = Number(value);
  if (!Number.isInteger(rate) || rate < 1)
    throw new InvalidArgumentError(`expected a whole number of components a minute, 1 or more, got "${value}"`);
  return rate;
}

const BUDGET_DESCRIPTION = 'USD at list price the key may spend a UTC month (the account’s own budget still holds)';
const ENDPOINTS_DESCRIPTION = 'the endpoints it may call, comma-separated: property/value,block/* (default: every one)';
const EXPIRES_DESCRIPTION = 'when it stops opening the gateway: a date, a UTC time or a duration from now (2027-01-31, 90d)';
const RATE_DESCRIPTION = "its share of the account's rate: components a minute at most, on each gateway";

const ADD_OPTIONS = [
  { flags: '--budget-month <usd>', description: BUDGET_DESCRIPTION, parse: positiveNumber },
  { flags: '--endpoints <list>', description: ENDPOINTS_DESCRIPTION, parse: endpointList },
  { flags: '--expires <when>', description: EXPIRES_DESCRIPTION, parse: expiryAt },
  { flags: '--rate <components-a-minute>', description: RATE_DESCRIPTION, parse: perMinute },
  { flags: '--json', description: 'print {"key", "secret"} as JSON' },
  ...STORE_FILE_OPTIONS,
] as const satisfies readonly OptionSpec[];

const SET_OPTIONS = [
  {
    flags: '--budget-month <usd>',
    description: `${BUDGET_DESCRIPTION}; none: no budget of its own`,
    parse: orCleared('none', positiveNumber),
  },
  { flags: '--endpoints <list>', description: `${ENDPOINTS_DESCRIPTION}; all: every one`, parse: orCleared('all', endpointList) },
  { flags: '--expires <when>', description: `${EXPIRES_DESCRIPTION}; never`, parse: orCleared('never', expiryAt) },
  {
    flags: '--rate <components-a-minute>',
    description: `${RATE_DESCRIPTION}; none: no share of its own`,
    parse: orCleared('none', perMinute),
  },
  ...STORE_FILE_OPTIONS,
] as const satisfies readonly OptionSpec[];

const ROTATE_OPTIONS = [
  {
    flags: '--grace <duration>',
    description: `how long the old secret still opens the gateway (default: ${GATEWAY_WAITS.rotateGraceMs / 3_600_000}h; 0: not at all)`,
    parse: (value: string) => {
      const ms = parseDuration(value);
      if (ms === undefined) throw new InvalidArgumentError(`expected a duration such as 24h, 30m or 0, got "${value}"`);
      return ms;
    },
  },
  { flags: '--json', description: 'print {"key", "secret", "oldSecretValidUntil"} as JSON' },
  ...STORE_FILE_OPTIONS,
] as const satisfies readonly OptionSpec[];

const LIST_OPTIONS = [
  { flags: '--json', description: 'print the keys as JSON (never a secret nor its hash)' },
  ...STORE_FILE_OPTIONS,
] as const satisfies readonly OptionSpec[];

/** Opens the store (making it if need be: a gateway's first key may come before its first run), does `work`, closes it. */
async function withStore<T>(store: string | undefined, context: CommandContext, work: (opened: Store) => Promise<T>): Promise<T> {
  const { openStore, storePathFrom } = await import('../../store/index.js');
  const opened = await openStore(storePathFrom(store, context.io.env));
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

const iso = (at: number | undefined) => (at === undefined ? null : new Date(at).toISOString());

/** A key's state at `now`: revoked, expired, rotating (its old secret still valid), or live. */
function stateOf(key: ClientKey, now: number): 'revoked' | 'expired' | 'rotating' | 'live' {
  if (key.revoked !== undefined) return 'revoked';
  if (key.expires !== undefined && key.expires <= now) return 'expired';
  if (key.previousValidUntil !== undefined && key.previousValidUntil > now) return 'rotating';
  return 'live';
}

/** A key as `keys list --json` shows it: everything but its hashes. */
function listed(key: ClientKey, spent: number, now: number) {
  const state = stateOf(key, now);
  return {
    name: key.name,
    state,
    live: state === 'live' || state === 'rotating',
    budgetMonth: key.budgetMonth ?? null,
    spentThisMonth: Math.round(spent * 100) / 100,
    endpoints: key.endpoints ?? null,
    ratePerMinute: key.ratePerMinute ?? null,
    created: new Date(key.created).toISOString(),
    expires: iso(key.expires),
    oldSecretValidUntil: state === 'rotating' ? iso(key.previousValidUntil) : null,
    revoked: iso(key.revoked),
  };
}

const minute = (at: string) => `${at.slice(0, 16).replace('T', ' ')}Z`;

/** The STATUS column: the state, and until when it holds. */
function statusText(key: ReturnType<typeof listed>): string {
  if (key.state === 'revoked') return `revoked ${key.revoked!.slice(0, 10)}`;
  if (key.state === 'expired') return `expired ${key.expires!.slice(0, 10)}`;
  const rotating = key.state === 'rotating' ? `; old secret until ${minute(key.oldSecretValidUntil!)}` : '';
  return `live${key.expires === null ? '' : ` until ${minute(key.expires)}`}${rotating}`;
}

function formatKeys(keys: ReturnType<typeof listed>[], width: number | undefined): string {
  if (keys.length === 0) return 'no keys yet: propdata keys add <name>\n';
  const rows = [
    ['KEY', 'STATUS', 'BUDGET USD/MONTH', 'SPENT THIS MONTH', 'RATE/MIN', 'ENDPOINTS', 'CREATED'],
    ...keys.map((key) => [
      key.name,
      statusText(key),
      key.budgetMonth === null ? '-' : key.budgetMonth.toFixed(2),
      key.spentThisMonth.toFixed(2),
      key.ratePerMinute === null ? '-' : String(key.ratePerMinute),
      key.endpoints?.join(',') ?? 'every one',
      key.created.slice(0, 10),
    ]),
  ];
  return textTable(rows, { rightAligned: [2, 3, 4], width, flexible: [5] });
}

/** `keys add`: a new key and its secret, shown once; the store keeps the hash. */
async function addKey(name: string, options: OptionValues<typeof ADD_OPTIONS>, context: CommandContext): Promise<void> {
  const { io } = context;
  const problem = keyNameProblem(name);
  if (problem) throw new UsageError(problem);
  const secret = newSecret();
  const key: ClientKey = {
    name,
    secretHash: await hashSecret(secret),
    ...(options.budgetMonth !== undefined ? { budgetMonth: options.budgetMonth } : {}),
    ...(options.endpoints !== undefined ? { endpoints: options.endpoints } : {}),
    ...(options.expires !== undefined ? { expires: options.expires } : {}),
    ...(options.rate !== undefined ? { ratePerMinute: options.rate } : {}),
    created: Date.now(),
  };
  const added = await withStore(options.store, context, (store) => store.keys.add(key));
  if (!added) throw new UsageError(`a live key named ${name} exists: revoke it first (propdata keys revoke ${name}) to issue it again`);
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ key: name, secret })}\n`);
    return;
  }
  const limits = [
    options.budgetMonth === undefined ? 'no budget of its own' : `a budget of ${options.budgetMonth.toFixed(2)} USD a month`,
    options.endpoints === undefined ? 'every endpoint' : `endpoints ${options.endpoints.join(',')}`,
    ...(options.expires !== undefined ? [`expires ${minute(new Date(options.expires).toISOString())}`] : []),
    ...(options.rate !== undefined ? [`${options.rate} components a minute`] : []),
  ];
  io.stdout.write(
    [
      `key ${name} issued: ${limits.join('; ')}`,
      `  key:    ${name}`,
      `  secret: ${secret}`,
      'The secret is shown this once: the store keeps only its hash. A client sends them as its API key and secret,',
      "with the gateway's address as its base URL (PROPDATA_BASE_URL, PROPDATA_API_KEY, PROPDATA_API_SECRET for propdata).",
      '',
    ].join('\n'),
  );
}

/** `keys set`: a live key's budget, endpoints, expiry or rate changed, its secret kept. */
async function setKey(name: string, options: OptionValues<typeof SET_OPTIONS>, context: CommandContext): Promise<void> {
  const changes: KeyChanges = {
    ...(options.budgetMonth !== undefined ? { budgetMonth: changeOf(options.budgetMonth) } : {}),
    ...(options.endpoints !== undefined ? { endpoints: changeOf(options.endpoints) } : {}),
    ...(options.expires !== undefined ? { expires: changeOf(options.expires) } : {}),
    ...(options.rate !== undefined ? { ratePerMinute: changeOf(options.rate) } : {}),
  };
  if (Object.keys(changes).length === 0) throw new UsageError('name what to change: --budget-month, --endpoints, --expires or --rate');
  const changed = await withStore(options.store, context, (store) => store.keys.update(name, changes));
  if (!changed) throw new UsageError(`no live key named ${name} (propdata keys list)`);
  context.io.stdout.write(`key ${name} changed, its secret kept: gateways apply it within 2 s\n`);
}

/** `keys rotate`: a new secret, shown once; the old one still opens the gateway for the grace. */
async function rotateKey(name: string, options: OptionValues<typeof ROTATE_OPTIONS>, context: CommandContext): Promise<void> {
  const secret = newSecret();
  const until = Date.now() + (options.grace ?? GATEWAY_WAITS.rotateGraceMs);
  const rotated = await withStore(options.store, context, async (store) => store.keys.rotate(name, await hashSecret(secret), until));
  if (!rotated) throw new UsageError(`no live key named ${name} (propdata keys list)`);
  const untilText = new Date(until).toISOString();
  if (options.json) {
    context.io.stdout.write(`${JSON.stringify({ key: name, secret, oldSecretValidUntil: untilText })}\n`);
    return;
  }
  context.io.stdout.write(
    [
      `key ${name} rotated: its old secret opens the gateway until ${minute(untilText)}, then only this one`,
      `  key:    ${name}`,
      `  secret: ${secret}`,
      'The secret is shown this once: the store keeps only its hash.',
      '',
    ].join('\n'),
  );
}

export function registerKeysCommand(program: Command, context: CommandContext): void {
  const { io } = context;
  const keys = program
    .command('keys')
    .usage(
      'add <name> [--budget-month USD] [--endpoints LIST] [--expires WHEN] [--rate N]|set <name> ...|rotate <name> [--grace D]|list|revoke <name> [--store S]',
    )
    .description(
      "the keys of `propdata serve`'s clients, kept in the store (a gateway reads them within 2 s): issue, change, rotate, list, revoke",
    )
    .addHelpText(
      'after',
      [
        '',
        'A key is a name and a secret: a client sends them as its API key and secret. The secret is shown once;',
        'the store keeps only its scrypt hash. Every gateway on the store (a postgres:// one: on every host) takes the key.',
        '',
        'Examples:',
        '  $ propdata keys add alice --budget-month 50',
        '  $ propdata keys add nightly-etl --endpoints property/value,property/rental_value --rate 600',
        '  $ propdata keys set alice --budget-month 80 --expires 2027-06-30',
        '  $ propdata keys rotate nightly-etl --grace 2h',
        '  $ propdata keys list',
        '  $ propdata keys revoke alice',
      ].join('\n'),
    );

  const add = keys.command('add').argument('<name>').description('issue a key and its secret for a person or a job');
  addOptions(add, ADD_OPTIONS, io.env);
  add.action((name: string, options: OptionValues<typeof ADD_OPTIONS>) => addKey(name, options, context));

  const set = keys.command('set').argument('<name>').description("change a live key's budget, endpoints, expiry or rate, its secret kept");
  addOptions(set, SET_OPTIONS, io.env);
  set.action((name: string, options: OptionValues<typeof SET_OPTIONS>) => setKey(name, options, context));

  const rotate = keys
    .command('rotate')
    .argument('<name>')
    .description('give a key a new secret; the old one still opens the gateway for a grace period');
  addOptions(rotate, ROTATE_OPTIONS, io.env);
  rotate.action((name: string, options: OptionValues<typeof ROTATE_OPTIONS>) => rotateKey(name, options, context));

  const list = keys
    .command('list')
    .description("every key with its state (live, rotating, expired, revoked), budget, this month's spend, rate and endpoints");
  addOptions(list, LIST_OPTIONS, io.env);
  list.action(async (options: OptionValues<typeof LIST_OPTIONS>) => {
    const rows = await withStore(options.store, context, async (store) => {
      const spent = await store.keys.spentSince(monthOf(Date.now())[0]);
      const now = Date.now();
      return (await store.keys.list()).map((key) => listed(key, spent.get(key.name) ?? 0, now));
    });
    io.stdout.write(options.json ? `${JSON.stringify(rows, null, 2)}\n` : formatKeys(rows, terminalWidth(io.stdout)));
  });

  const revoke = keys
    .command('revoke')
    .argument('<name>')
    .description('revoke a key: gateways refuse it within 2 s; its spend stays on record');
  addOptions(revoke, STORE_FILE_OPTIONS, io.env);
  revoke.action(async (name: string, options: OptionValues<typeof STORE_FILE_OPTIONS>) => {
    const revoked = await withStore(options.store, context, (store) => store.keys.revoke(name, Date.now()));
    if (!revoked) throw new UsageError(`no live key named ${name} (propdata keys list)`);
    io.stdout.write(`key ${name} revoked on ${day(Date.now())}: gateways refuse it within 2 s; its spend stays on record\n`);
  });
}
