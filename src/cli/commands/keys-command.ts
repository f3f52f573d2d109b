import { InvalidArgumentError, type Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { hashSecret, keyNameProblem, newSecret } from '../../gateway/key-secrets.js';
import { parseKeyEndpoints } from '../../gateway/key-endpoints.js';
import type { OptionSpec, OptionValues } from '../../options/option-spec.js';
import type { ClientKey, Store } from '../../store/index.js';
import { monthOf } from '../../store/spend.js';
import { addOptions } from '../add-options.js';
import { terminalWidth } from '../io.js';
import { positiveNumber, STORE_FILE_OPTIONS } from '../options.js';
import type { CommandContext } from './command-context.js';
import { textTable } from './text-table.js';

const ADD_OPTIONS = [
  {
    flags: '--budget-month <usd>',
    description: 'USD at list price the key may spend a UTC month (the account’s own budget still holds)',
    parse: positiveNumber,
  },
  {
    flags: '--endpoints <list>',
    description: 'the endpoints it may call, comma-separated: property/value,block/* (default: every one)',
    parse: (value: string) => {
      try {
        return parseKeyEndpoints(value);
      } catch (error) {
        throw new InvalidArgumentError((error as Error).message);
      }
    },
  },
  { flags: '--json', description: 'print {"key", "secret"} as JSON' },
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

/** A key as `keys list --json` shows it: everything but its hash. */
function listed(key: ClientKey, spent: number) {
  return {
    name: key.name,
    live: key.revoked === undefined,
    budgetMonth: key.budgetMonth ?? null,
    spentThisMonth: Math.round(spent * 100) / 100,
    endpoints: key.endpoints ?? null,
    created: new Date(key.created).toISOString(),
    revoked: key.revoked === undefined ? null : new Date(key.revoked).toISOString(),
  };
}

function formatKeys(keys: ReturnType<typeof listed>[], width: number | undefined): string {
  if (keys.length === 0) return 'no keys yet: propdata keys add <name>\n';
  const rows = [
    ['KEY', 'STATUS', 'BUDGET USD/MONTH', 'SPENT THIS MONTH', 'ENDPOINTS', 'CREATED'],
    ...keys.map((key) => [
      key.name,
      key.revoked === null ? 'live' : `revoked ${key.revoked.slice(0, 10)}`,
      key.budgetMonth === null ? '-' : key.budgetMonth.toFixed(2),
      key.spentThisMonth.toFixed(2),
      key.endpoints?.join(',') ?? 'every one',
      key.created.slice(0, 10),
    ]),
  ];
  return textTable(rows, { rightAligned: [2, 3], width, flexible: [4] });
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

export function registerKeysCommand(program: Command, context: CommandContext): void {
  const { io } = context;
  const keys = program
    .command('keys')
    .usage('add <name> [--budget-month USD] [--endpoints LIST]|list|revoke <name> [--store S]')
    .description("the keys of `propdata serve`'s clients, kept in the store (a gateway reads them within 2 s): issue, list, revoke")
    .addHelpText(
      'after',
      [
        '',
        'A key is a name and a secret: a client sends them as its API key and secret. The secret is shown once;',
        'the store keeps only its scrypt hash. Every gateway on the store (a postgres:// one: on every host) takes the key.',
        '',
        'Examples:',
        '  $ propdata keys add alice --budget-month 50',
        '  $ propdata keys add nightly-etl --endpoints property/value,property/rental_value',
        '  $ propdata keys list',
        '  $ propdata keys revoke alice',
      ].join('\n'),
    );

  const add = keys.command('add').argument('<name>').description('issue a key and its secret for a person or a job');
  addOptions(add, ADD_OPTIONS, io.env);
  add.action((name: string, options: OptionValues<typeof ADD_OPTIONS>) => addKey(name, options, context));

  const list = keys.command('list').description("every key, live or revoked, with its budget and this month's spend");
  addOptions(list, LIST_OPTIONS, io.env);
  list.action(async (options: OptionValues<typeof LIST_OPTIONS>) => {
    const rows = await withStore(options.store, context, async (store) => {
      const spent = await store.keys.spentSince(monthOf(Date.now())[0]);
      return (await store.keys.list()).map((key) => listed(key, spent.get(key.name) ?? 0));
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
