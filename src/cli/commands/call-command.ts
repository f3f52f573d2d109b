import type { Command } from 'commander';
import { LEVELS } from '../../catalog/index.js';
import { addOptions } from '../add-options.js';
import { deferOptions } from '../deferred-options.js';
import { identifierOptions, paramOptions } from '../options.js';
import { callTarget } from '../../model/query-target.js';
import type { QueryOptions } from './query-options.js';
import type { CommandContext } from './command-context.js';
import { QUERY_OPTIONS } from './query-options.js';

export function registerCallCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('call')
    .argument('<path>', 'endpoint path <version>/<level>/<target>, e.g. v3/property/hoa_est or v2/zip/details')
    .usage('<version>/<level>/<target> [identifiers] [params]')
    .description(
      'any endpoint path, including ones the catalog does not describe (v3/property/hoa_est; blockgroup, metrodiv, state, reports levels)',
    )
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ propdata call v3/property/hoa_est --address "43 Valmonte Plaza" --zipcode 90274',
        '  $ propdata call v2/blockgroup/details --blockgroup-id 060377910701 --param months=12',
        '  $ propdata call v2/property/component_mget --param components=property/value,property/zip_details --input homes.csv',
        '',
        'Every identifier flag given is sent. In a batch (--input), a column that is not an identifier',
        'or a known parameter is sent as a parameter under its own name (names of letters, digits and',
        'underscores; other columns are kept in the output only); --map COLUMN= keeps one from being',
        'sent. A reports/* path is sent as one GET per row: report products take no POST.',
      ].join('\n'),
    );
  // Built on first use, as an endpoint command's: a one-off or a batch to another command never needs them.
  deferOptions(command, () =>
    addOptions(command, [...identifierOptions([...LEVELS]), ...paramOptions([]), ...QUERY_OPTIONS], context.io.env),
  );
  command.action(async (path: string, options: QueryOptions) => {
    // Loaded when a query runs: building the command tree for --help does not need it.
    const { runQuery } = await import('../run-query.js');
    context.exitCode = await runQuery(callTarget(path, options.param ?? {}), options, context);
  });
}
