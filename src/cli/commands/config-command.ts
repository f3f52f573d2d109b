import { resolve } from 'node:path';
import type { Command } from 'commander';
import { holdsPassword, isDatabaseUrl, parseDatabaseUrl, storeForMessages, withoutPassword } from '../../config/database-url.js';
import { findSetting, maskSecret, SETTINGS, type SettingName } from '../../config/settings.js';
import { parseBaseUrl } from '../../config/connection.js';
import { valueFromText } from '../../config/secret-file.js';
import { parseRunSetting } from '../run-defaults.js';
import { UsageError } from '../../errors/index.js';
import type { CommandContext } from './command-context.js';

function settingName(name: string): SettingName {
  const setting = findSetting(name);
  if (!setting) throw new UsageError(`unknown setting "${name}": use ${SETTINGS.map((s) => s.name).join(', ')}`);
  return setting.name;
}

async function store(context: CommandContext) {
  const { openConfigStore } = await import('../../config/store.js');
  return openConfigStore(context.io.env);
}

/**
 * `config set secret -`: the value from stdin, so it stays out of the shell's history and the
 * process list. Only the final line break goes (what `echo` and a here-string add).
 */
async function readValue(context: CommandContext): Promise<string> {
  let text = '';
  for await (const part of context.io.stdin) text += typeof part === 'string' ? part : (part as Buffer).toString('utf8');
  const value = valueFromText(text);
  if (value === '') throw new UsageError('"-" reads the value from stdin, but stdin was empty');
  return value;
}

/** A setting's value as it may be shown: a secret masked, a database URL without its password. */
const shown = (name: SettingName, value: string) =>
  findSetting(name)!.secret ? maskSecret(value) : name === 'store' ? storeForMessages(value) : value;

/**
 * A store as stored: a database URL that parses, without a password, or a file's absolute path (a
 * relative one would follow every command's directory). An empty value names no file (resolved, it
 * was the working directory, which no store can open); a password would be kept in the clear in
 * config.json, where the guide promises it never is (docs/several-machines.md).
 */
function storeSetting(value: string): string {
  if (value.trim() === '') {
    throw new UsageError(
      'config set store: the value is empty, which names no store; give a file or a postgres:// URL, or `propdata config unset store` for the default',
    );
  }
  if (!isDatabaseUrl(value)) return resolve(value);
  parseDatabaseUrl(value);
  if (holdsPassword(value)) {
    throw new UsageError(
      `config set store: the URL holds a password, which the config would keep in the clear: store ${withoutPassword(value)} ` +
        'and give the password with PGPASSWORD or in ~/.pgpass, or the whole URL in PROPDATA_STORE',
    );
  }
  return value;
}

/** A subcommand's examples, after its help. */
const examples = (...lines: string[]): string => ['', 'Examples:', ...lines.map((line) => `  $ propdata ${line}`)].join('\n');

/** `config set NAME VALUE`: checked as its flag would check it, stored, and said back as `config list` shows it. */
async function setSetting(context: CommandContext, name: string, given: string): Promise<void> {
  const setting = settingName(name);
  // The secret as a word of the command: in the process list while it runs, and in the shell's history (a store's password is refused: storeSetting).
  if (given !== '-' && findSetting(setting)!.secret)
    context.messages.info(
      'propdata: warning: a secret on the command line can be read by other users of this machine (ps) while it runs, ' +
        `and stays in your shell history; next time: propdata config set ${setting} - < FILE`,
    );
  const read = given === '-' ? await readValue(context) : given;
  const value = setting === 'store' ? storeSetting(read) : read;
  if (setting === 'base-url') parseBaseUrl(value);
  if (setting === 'max-age' || setting === 'max-cost-month') parseRunSetting(setting, value, 'config set');
  const stored = await store(context);
  stored.set(setting, value);
  // What was stored, as `config list` shows it: a value read from stdin is seen nowhere else.
  context.io.stdout.write(`${setting}=${shown(setting, value)} stored in ${stored.path}\n`);
}

export function registerConfigCommand(program: Command, context: CommandContext): void {
  const config = program
    .command('config')
    .usage('set|get|unset|list|path')
    .description(
      'store the API key, secret and base URL, and defaults for --max-age, --max-cost-month and --store (in a file only you can read)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ propdata config set key YOUR_KEY\n  $ propdata config set secret YOUR_SECRET\n  $ propdata config set base-url https://api.example.com\n  $ propdata config set max-age 30d\n  $ propdata config set store postgres://propdata@db.internal/jobs\n  $ propdata config list',
    );
  const out = (line: string): void => {
    context.io.stdout.write(`${line}\n`);
  };

  config
    .command('set')
    .argument('<name>', SETTINGS.map((s) => s.name).join(' | '))
    .argument('<value>', '"-" reads it from stdin (keeps a secret out of shell history)')
    .description('store a setting')
    .addHelpText(
      'after',
      examples(
        'config set key YOUR_KEY',
        'config set secret - < secret.txt',
        'config set base-url https://api.example.com',
        'config set max-cost-month 500',
      ),
    )
    .action((name: string, given: string) => setSetting(context, name, given));
  config
    .command('get')
    .argument('<name>')
    .description('print a stored setting (the secret is masked)')
    .addHelpText('after', examples('config get key', 'config get base-url   # or base_url'))
    .action(async (name: string) => {
      const setting = settingName(name);
      const value = (await store(context)).get(setting);
      if (value === undefined) {
        context.exitCode = 1;
        context.messages.error(`propdata: ${setting} is not set`);
        return;
      }
      out(shown(setting, value));
    });
  config
    .command('unset')
    .argument('<name>')
    .description('remove a stored setting')
    .addHelpText('after', examples('config unset secret', 'config unset max-age'))
    .action(async (name: string) => {
      (await store(context)).delete(settingName(name));
    });
  config
    .command('list')
    .description('every stored setting, the secret masked')
    .addHelpText('after', examples('config list'))
    .action(async () => {
      const stored = await store(context);
      for (const setting of SETTINGS) {
        const value = stored.get(setting.name);
        out(`${setting.name}=${value === undefined ? '' : shown(setting.name, value)}`);
      }
    });
  config
    .command('path')
    .description('where the settings are stored')
    .addHelpText('after', examples('config path'))
    .action(async () => out((await store(context)).path));
}
