import type { Command } from 'commander';
import type { OptionSpec } from '../options/option-spec.js';
import { code, markdownTable, prose } from '../options/readme-table.js';
import { SANDBOX_OPTIONS } from '../sandbox/options.js';
import { EXIT, EXIT_MEANINGS } from './exit-codes.js';
import { SERVE_OPTIONS } from './commands/serve-options.js';
import { BATCH_OPTIONS, CONNECTION_OPTIONS, STORE_OPTIONS } from './options.js';

/**
 * The documentation's option tables (README.md, docs/*.md), by the name in their
 * `<!-- options: NAME -->` marker: rendered from the same declarations as `--help`
 * (test/options/readme-tables.test.ts fails when one is stale).
 */
// Read by test/options/readme-tables.test.ts alone, which checks and rewrites the documentation with it.
export const README_OPTION_TABLES: Readonly<Record<string, readonly OptionSpec[]>> = {
  batch: BATCH_OPTIONS,
  store: STORE_OPTIONS,
  connection: CONNECTION_OPTIONS,
  sandbox: SANDBOX_OPTIONS,
  serve: SERVE_OPTIONS,
};

/** Each command as its help's `Usage:` line has it, and its description, in the order `propdata --help` lists them. */
function commandTable(program: Command): string {
  const commands = program.createHelp().visibleCommands(program);
  return markdownTable(
    ['command', 'what it does'],
    commands.map((command) => [code(`propdata ${command.name()} ${command.usage()}`), prose(command.description())]),
  );
}

function exitCodeTable(): string {
  const names = Object.keys(EXIT) as (keyof typeof EXIT)[];
  return markdownTable(
    ['code', 'meaning'],
    names.map((name) => [String(EXIT[name]), prose(EXIT_MEANINGS[name])]),
  );
}

/**
 * The documentation's other generated tables, by the name in their `<!-- table: NAME -->` marker: the
 * command table from the program as built (`program`), the exit codes from their declaration.
 */
// Read by test/options/readme-tables.test.ts alone, which checks and rewrites the documentation with it.
export function readmeTables(program: Command): Readonly<Record<string, string>> {
  return { commands: commandTable(program), 'exit-codes': exitCodeTable() };
}
