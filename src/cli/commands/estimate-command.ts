import type { Command } from 'commander';
import { findEndpoint, suggestEndpoints } from '../../catalog/index.js';
import { UsageError } from '../../errors/index.js';
import { addOptions } from '../add-options.js';
import { BATCH_OPTIONS, paramOptions } from '../options.js';
import { singleEndpointTarget, type QueryTarget } from '../../catalog/query-target.js';
import type { BatchOptions } from '../batch-command.js';
import type { CommandContext } from './command-context.js';
import { mgetTarget, parseComponents } from './mget-command.js';

/** One endpoint is called as itself; several are one component_mget. */
function estimateTarget(list: string): QueryTarget {
  if (list.includes(',')) return mgetTarget(parseComponents(list));
  const endpoint = findEndpoint(list);
  if (!endpoint || endpoint.mget) {
    const close = suggestEndpoints(list);
    throw new UsageError(`unknown endpoint "${list}"${close.length > 0 ? `; did you mean ${close.join(', ')}?` : ''}`, 'E_UNKNOWN_ENDPOINT');
  }
  return singleEndpointTarget(endpoint);
}

export function registerEstimateCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('estimate')
    .argument('<endpoints>', 'an endpoint, or several property endpoints separated by commas (one mget)')
    .description('before spending: rows, invalid rows, unique items, components, requests, time and cost; nothing is sent')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ propdata estimate property/value --input homes.csv',
        '  $ propdata estimate property/value,property/school --input homes.csv --price property/school=0.05',
      ].join('\n'),
    );
  addOptions(command, [...BATCH_OPTIONS.filter((option) => !/--(output|format|report|resume|dry-run|excel)\b/.test(option.flags)), ...paramOptions([])]);
  command.action(async (list: string, options: BatchOptions) => {
    if (options.input === undefined) throw new UsageError('estimate needs --input FILE (or - for stdin)');
    const { runEstimate } = await import('../batch-command.js');
    context.exitCode = await runEstimate(estimateTarget(list), options, context.io);
  });
}
