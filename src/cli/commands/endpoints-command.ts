import type { Command } from 'commander';
import { ENDPOINTS, LEVEL_SPECS, LEVELS, type Endpoint } from '../../catalog/index.js';
import { addOptions } from '../add-options.js';
import type { OptionSpec, OptionValues } from '../../options/option-spec.js';
import type { CommandContext } from './command-context.js';
import { COMMAND_LEVELS } from './command-levels.js';
import { textTable } from './text-table.js';
import { terminalWidth } from '../io.js';

function identifiersOf(endpoint: Endpoint): string {
  const spec = LEVEL_SPECS[endpoint.level];
  const names = spec.identifiers.map((id) => id.name);
  return spec.rule === 'address-or-slug' ? 'address or slug (+unit, city, state, zipcode)' : names.join(', ');
}

function paramsOf(endpoint: Endpoint): string {
  return endpoint.params.map((param) => (param.required ? `${param.name}*` : param.name)).join(', ');
}

const ENDPOINTS_OPTIONS = [
  { flags: '--level <level>', description: 'only this level', choices: LEVELS },
  { flags: '--wide', description: 'also the version, identifiers and parameters of each endpoint' },
  { flags: '--json', description: 'the catalog as JSON, with parameters and result shapes' },
] as const satisfies readonly OptionSpec[];

export function registerEndpointsCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('endpoints')
    .usage('[--level L] [--wide] [--json]')
    .description('the endpoint catalog: list price per item and description (--wide: also version, identifiers, parameters)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ propdata endpoints --level block\n  $ propdata endpoints --wide\n  $ propdata endpoints --json',
    );
  addOptions(command, ENDPOINTS_OPTIONS, context.io.env);
  command.action((options: OptionValues<typeof ENDPOINTS_OPTIONS>) => {
    const endpoints = ENDPOINTS.filter((endpoint) => !options.level || endpoint.level === options.level);
    if (options.json) {
      context.io.stdout.write(`${JSON.stringify(endpoints, null, 2)}\n`);
      return;
    }
    // Compact by default: one line an endpoint on a terminal; --wide adds what only some need.
    const rows = [
      options.wide ? ['ENDPOINT', 'VERSION', 'USD', 'IDENTIFIERS', 'PARAMETERS', 'DESCRIPTION'] : ['ENDPOINT', 'USD', 'DESCRIPTION'],
    ];
    for (const endpoint of endpoints) {
      const price = endpoint.mget ? 'sum' : endpoint.price.toFixed(2);
      rows.push(
        options.wide
          ? [endpoint.name, endpoint.version, price, identifiersOf(endpoint), paramsOf(endpoint), endpoint.description]
          : [endpoint.name, price, endpoint.description],
      );
    }
    // On a terminal the free text gives way: cut in the compact list, wrapped in the wide one.
    const width = terminalWidth(context.io.stdout);
    context.io.stdout.write(textTable(rows, options.wide ? { width, flexible: [3, 4, 5] } : { width, flexible: [2], cut: true }));
    context.io.stdout.write('\nUSD: list price per item, for estimate and --max-cost (--price endpoint=USD sets another).\n');
    if (!options.wide) context.io.stdout.write('--wide adds version, identifiers and parameters; --json has everything.\n');
    const commandLevels: readonly string[] = COMMAND_LEVELS;
    if (!options.level || !commandLevels.includes(options.level)) {
      const others = LEVELS.filter((level) => !commandLevels.includes(level)).join(', ');
      context.io.stdout.write(`\nOther paths (v3 targets; ${others} levels):\n  propdata call <version>/<level>/<target>\n`);
    }
  });
}
