import type { Command } from 'commander';
import { endpointsAt, LEVEL_SPECS, type Endpoint } from '../../catalog/index.js';
import { addOptions } from '../add-options.js';
import { deferOptions } from '../deferred-options.js';
import { flagName, identifierOptions, paramOptions } from '../options.js';
import { refuseIdentifierWords } from './identifier-words.js';
import { singleEndpointTarget } from '../../model/query-target.js';
import type { QueryOptions } from './query-options.js';
import type { CommandContext } from './command-context.js';
import { COMMAND_LEVELS, EXAMPLE_IDENTIFIERS } from './command-levels.js';
import { QUERY_OPTIONS } from './query-options.js';

const EXAMPLE_PARAM_VALUES: Record<string, string> = {
  add_beds: '1',
  add_baths: '1.5',
  add_sqft: '300',
  add_pools: '1',
  adjust_to_date: '2025-01-01',
  client_value: '900000',
  client_value_sqft: '450',
  client_date: '2020-06-01',
  property_type: 'SFD',
};

function example(endpoint: Endpoint): string {
  const param =
    endpoint.params.find((candidate) => candidate.required || endpoint.requireOneOf?.includes(candidate.name)) ?? endpoint.params[0];
  const paramFlag = param ? ` --${flagName(param.name)} ${EXAMPLE_PARAM_VALUES[param.name] ?? 'VALUE'}` : '';
  const command = `propdata ${endpoint.level} ${endpoint.target}`;
  return [
    '',
    'Examples:',
    `  $ ${command} ${EXAMPLE_IDENTIFIERS[endpoint.level]}${paramFlag} --sandbox`,
    `  $ ${command}${paramFlag} --input items.csv --output results.csv`,
  ].join('\n');
}

export function registerEndpointCommands(program: Command, context: CommandContext): void {
  for (const level of COMMAND_LEVELS) {
    const first = endpointsAt(level)[0]?.target;
    const levelCommand = program
      .command(level)
      .usage('<target> [identifiers] [params]')
      .description(
        `${level}-level endpoints, e.g. propdata ${level} ${first} (identifiers: ${LEVEL_SPECS[level].identifiers.map((id) => id.name).join(', ')})`,
      )
      .addHelpText('after', `\nExample:\n  $ propdata ${level} ${first} ${EXAMPLE_IDENTIFIERS[level]} --sandbox`);
    for (const endpoint of endpointsAt(level).filter((candidate) => !candidate.mget)) {
      // Its name, alias and description are all a list of commands shows; the rest is built on use.
      // Words after it are refused in the action, with a better message than "too many arguments".
      const command = levelCommand.command(endpoint.target).description(endpoint.description).allowExcessArguments();
      const kebab = flagName(endpoint.target);
      if (kebab !== endpoint.target) command.alias(kebab);
      deferOptions(command, () => {
        command.addHelpText('after', example(endpoint));
        addOptions(command, [...identifierOptions([level]), ...paramOptions([endpoint]), ...QUERY_OPTIONS], context.io.env);
      });
      command.action(async (options: QueryOptions) => {
        refuseIdentifierWords(command.args, `propdata ${level} ${endpoint.target}`, level);
        // Loaded when a query runs: building the command tree for --help does not need it.
        const { runQuery } = await import('../run-query.js');
        context.exitCode = await runQuery(singleEndpointTarget(endpoint), options, context);
      });
    }
  }
}
