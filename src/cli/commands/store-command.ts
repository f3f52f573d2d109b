import type { Command } from 'commander';
import { storeForMessages } from '../../config/database-url.js';
import { UsageError } from '../../errors/index.js';
import type { Store, StoreInfo } from '../../store/index.js';
import { addOptions } from '../add-options.js';
import { ACCOUNT_OPTIONS, duration, STORE_FILE_OPTIONS } from '../options.js';
import type { OptionSpec, OptionValues } from '../../options/option-spec.js';
import type { CommandContext } from './command-context.js';
import { checkAccountIn, REPORT_ACCOUNT_OPTION } from './report-account.js';
import { textTable } from './text-table.js';
import { terminalWidth } from '../io.js';

type StoreFileOptions = OptionValues<typeof STORE_FILE_OPTIONS>;

const INFO_OPTIONS = [REPORT_ACCOUNT_OPTION, ...STORE_FILE_OPTIONS] as const satisfies readonly OptionSpec[];

const PRUNE_OPTIONS = [
  { flags: '--older-than <duration>', description: 'answers that arrived this long ago or more (90d, 12h)', parse: duration },
  ...STORE_FILE_OPTIONS,
] as const satisfies readonly OptionSpec[];

const CLEAR_OPTIONS = [
  { flags: '--all-accounts', description: "every account in the store, not only the current credentials'" },
  ...STORE_FILE_OPTIONS,
  ...ACCOUNT_OPTIONS,
] as const satisfies readonly OptionSpec[];

/** Decimal units, as file managers show sizes. */
function formatBytes(bytes: number): string {
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  return bytes < 1e9 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e9).toFixed(2)} GB`;
}

/** A moment to the minute, in UTC as everything the store reports. */
const minute = (at: number) => new Date(at).toISOString().slice(0, 16).replace('T', ' ');

/** As minute(), for a time read from the store: one no Date can hold (damaged by hand) is said, not a failure. */
const keptMinute = (at: number) => (Number.isNaN(new Date(at).getTime()) ? 'unreadable' : minute(at));

/**
 * The store's figures, then its answers under a heading per account: an account (a base URL and
 * a key's fingerprint) is as wide as the rest of a row, and the same on each of its rows.
 */
function formatInfo(info: StoreInfo, notes: readonly string[], width: number | undefined): string {
  const head = `store     ${info.location}\nsize      ${formatBytes(info.bytes)}\nrequests  ${info.requests} recorded (propdata usage)\n`;
  if (info.answers.length === 0) return `${head}\nno answers stored\n`;
  const accounts = [...new Set(info.answers.map((row) => row.account))];
  const sections = accounts.map((account) => {
    const rows = [
      ['  ENDPOINT', 'ANSWERS', 'OLDEST (UTC)', 'NEWEST (UTC)'],
      ...info.answers
        .filter((row) => row.account === account)
        .map((row) => [`  ${row.endpoint}`, row.answers.toLocaleString('en-US'), keptMinute(row.oldest), keptMinute(row.newest)]),
    ];
    return `account ${account}\n${textTable(rows, { rightAligned: [1], width })}`;
  });
  return [head, ...sections, ...notes.map((note) => `note: ${note}\n`)].join('\n');
}

/**
 * Works on the store named by --store or the default one, if it exists (inspecting or clearing
 * never creates it), closes it, and prints what `work` says, or what `missing` says without one.
 */
async function withExistingStore(
  options: StoreFileOptions,
  context: CommandContext,
  readonly: boolean,
  missing: (path: string) => string,
  work: (store: Store) => Promise<string>,
): Promise<void> {
  const { openExistingStore, storePathFrom } = await import('../../store/index.js');
  const path = storePathFrom(options.store, context.io.env);
  const opened = await openExistingStore(path, { readonly });
  if (!opened) {
    context.io.stdout.write(missing(storeForMessages(path)));
    return;
  }
  try {
    context.io.stdout.write(await work(opened));
  } finally {
    await opened.close();
  }
}

const nothingToRemove = (path: string) => `nothing to remove: no store at ${path}\n`;

export function registerStoreCommand(program: Command, context: CommandContext): void {
  const store = program
    .command('store')
    .usage('info [--account A]|prune --older-than 90d|clear [--all-accounts]')
    .description(
      "the store of answers, spend and rate limits (a file, or a PostgreSQL database): what it holds, and removing answers (spend records are kept: they are the month's budget)",
    )
    .addHelpText(
      'after',
      [
        '',
        'The store is $PROPDATA_HOME/propdata.db (PROPDATA_HOME defaults to the platform data directory); --store FILE names another,',
        'and --store postgres://user@host/db (or PROPDATA_STORE, or config set store) a PostgreSQL database shared by several machines.',
        '',
        'Examples:',
        '  $ propdata store info',
        '  $ propdata store prune --older-than 90d',
        '  $ propdata store clear --sandbox',
        '  $ propdata store clear --all-accounts',
      ].join('\n'),
    );

  const info = store
    .command('info')
    .description(
      'path, size, answers per account and endpoint, oldest and newest, of every account or of one (--account); no credentials needed',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ propdata store info --store /data/nightly.db\n  $ propdata store info --account "sandbox (built in)"',
    );
  addOptions(info, INFO_OPTIONS, context.io.env);
  info.action(async (options: OptionValues<typeof INFO_OPTIONS>) => {
    await withExistingStore(
      options,
      context,
      true,
      (path) => `store     ${path}\nnot created yet: a run that uses it creates it\n`,
      async (opened) => {
        if (options.account !== undefined) await checkAccountIn(opened, options.account);
        const info = await opened.info(options.account);
        return formatInfo(info, opened.problems().notes, terminalWidth(context.io.stdout));
      },
    );
  });

  const prune = store
    .command('prune')
    .description('remove answers older than a duration, and give the room back to the disk (a database reuses it)')
    .addHelpText('after', '\nExample:\n  $ propdata store prune --older-than 90d');
  addOptions(prune, PRUNE_OPTIONS, context.io.env);
  prune.action(async (options: OptionValues<typeof PRUNE_OPTIONS>) => {
    if (options.olderThan === undefined) throw new UsageError('store prune needs --older-than DURATION, such as 90d');
    const olderThan = options.olderThan;
    await withExistingStore(options, context, false, nothingToRemove, async (opened) => {
      const before = Date.now() - olderThan;
      const removed = await opened.prune(olderThan);
      return `removed ${removed} answers that arrived before ${minute(before)} UTC; the store is ${formatBytes((await opened.info()).bytes)}\n`;
    });
  });

  const clear = store
    .command('clear')
    .description("remove the current account's answers and remembered rate limits (--all-accounts: every account's)")
    .addHelpText('after', '\nExamples:\n  $ propdata store clear --key test_YOUR_KEY\n  $ propdata store clear --all-accounts');
  addOptions(clear, CLEAR_OPTIONS, context.io.env);
  clear.action(async (options: OptionValues<typeof CLEAR_OPTIONS>) => {
    const { currentAccount } = await import('../../store/index.js');
    const account = options.allAccounts ? undefined : await currentAccount(options, context.io.env);
    await withExistingStore(options, context, false, nothingToRemove, async (opened) => {
      const removed = await opened.clear(account === undefined ? { allAccounts: true } : { account });
      return `removed ${removed} answers of ${account ?? 'every account'}; spend records are kept\n`;
    });
  });
}
