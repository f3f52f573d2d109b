import type { Command } from 'commander';
import { ENDPOINTS, LEVEL_SPECS, LEVELS, type Endpoint } from '../../catalog/index.js';
import { addOptions } from '../add-options.js';
import type { OptionSpec, OptionValues } from '../../options/option-spec.js';
import type { CommandContext } from './command-context.js';
import { COMMAND_LEVELS } from './command-levels.js';

function identifiersOf(endpoint: Endpoint): string {
  const spec = LEVEL_SPECS[endpoint.level];
  const names = spec.identifiers.map((id) => id.name);
  return spec.rule === 'address-or-slug' ? 'address or slug (+unit, city, state, zipcode)' : names.join(', ');
}

function paramsOf(endpoint: Endpoint): string {
  return endpoint.params.map((param) => (param.required ? `${param.name}*` : param.name)).join(', ');
}

/** Plain columns padded to the widest cell: readable in a terminal and greppable in a pipe. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

const ENDPOINTS_OPTIONS = [
  { flags: '--level <level>', description: 'only this level', choices: LEVELS },
  { flags: '--json', description: 'the catalog as JSON, with parameters and result shapes' },
] as const satisfies readonly OptionSpec[];

export function registerEndpointsCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('endpoints')
    .description('list the endpoints this tool knows: version, list price per item, identifiers, parameters, description')
    .addHelpText('after', '\nExamples:\n  $ propdata endpoints --level block\n  $ propdata endpoints --json');
  addOptions(command, ENDPOINTS_OPTIONS, context.io.env);
  command.action((options: OptionValues<typeof ENDPOINTS_OPTIONS>) => {
    const endpoints = ENDPOINTS.filter((endpoint) => !options.level || endpoint.level === options.level);
    if (options.json) {
      context.io.stdout.write(`${JSON.stringify(endpoints, null, 2)}\n`);
      return;
    }
    const rows = [['ENDPOINT', 'VERSION', 'USD', 'IDENTIFIERS', 'PARAMETERS', 'DESCRIPTION']];
    for (const endpoint of endpoints) {
      const price = endpoint.mget ? 'sum' : endpoint.price.toFixed(2);
      rows.push([endpoint.name, endpoint.version, price, identifiersOf(endpoint), paramsOf(endpoint), endpoint.description]);
    }
    context.io.stdout.write(table(rows));
    context.io.stdout.write('\nUSD: list price per item, used by estimate and --max-cost (override with --price endpoint=USD).\n');
    const commandLevels: readonly string[] = COMMAND_LEVELS;
    if (!options.level || !commandLevels.includes(options.level)) {
      const others = LEVELS.filter((level) => !commandLevels.includes(level)).join(', ');
      context.io.stdout.write(`\nOther paths (v3 targets; ${others} levels): propdata call <version>/<level>/<target>\n`);
    }
  });
}
