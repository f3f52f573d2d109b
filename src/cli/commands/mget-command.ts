import type { Command } from 'commander';
import { addOptions } from '../add-options.js';
import { deferOptions } from '../deferred-options.js';
import { identifierOptions, paramOptions } from '../options.js';
import { mgetTarget, MGET_COMPONENTS, parseComponents } from '../../model/query-target.js';
import type { QueryOptions } from './query-options.js';
import type { CommandContext } from './command-context.js';
import { refuseIdentifierWords } from './identifier-words.js';
import { QUERY_OPTIONS } from './query-options.js';

export function registerMgetCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('mget')
    .argument('<endpoints>', 'comma-separated property endpoints, e.g. property/value,property/school')
    .usage('<endpoint>[,<endpoint>...] [identifiers] [params]')
    .description('several property endpoints per item in one call (component_mget)')
    // Words after the list are refused in the action, with a better message than "too many arguments".
    .allowExcessArguments()
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ propdata mget property/value,property/school --address "43 Valmonte Plaza" --zipcode 90274 --sandbox',
        '  $ propdata mget property/value,property/rental_value,property/school --input homes.jsonl --output out.jsonl',
        '',
        'Each item costs one component per endpoint named.',
      ].join('\n'),
    );
  // Built on first use, as an endpoint command's: a one-off or a batch to another command never needs them.
  deferOptions(command, () =>
    addOptions(command, [...identifierOptions(['property']), ...paramOptions(MGET_COMPONENTS), ...QUERY_OPTIONS], context.io.env),
  );
  command.action(async (list: string, options: QueryOptions) => {
    refuseIdentifierWords(command.args.slice(1), `propdata mget ${list}`, 'property');
    // Loaded when a query runs: building the command tree for --help does not need it.
    const { runQuery } = await import('../run-query.js');
    context.exitCode = await runQuery(mgetTarget(parseComponents(list)), options, context);
  });
}
