import type { Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { addOptions } from '../add-options.js';
import { deferOptions } from '../deferred-options.js';
import { ACCOUNT_OPTIONS, BATCH_OPTIONS, paramOptions, STORE_OPTIONS } from '../options.js';
import { targetForList } from '../../model/query-target.js';
import type { QueryOptions } from './query-options.js';
import type { CommandContext } from './command-context.js';

export function registerEstimateCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('estimate')
    .argument('<endpoints>', 'an endpoint, or several property endpoints separated by commas (one mget)')
    .usage('<endpoint>[,...] --input F [options]')
    .description('before spending: rows, invalid rows, unique items, components, requests, time and cost of a batch; nothing is sent')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ propdata estimate property/value --input homes.csv',
        '  $ propdata estimate property/value,property/school --input homes.csv --price property/school=0.05',
        '  $ propdata estimate property/value --input homes.csv --json',
      ].join('\n'),
    );
  // Built on first use, as an endpoint command's: a query never needs them.
  deferOptions(command, () =>
    addOptions(
      command,
      [
        ...BATCH_OPTIONS.filter((option) => !/--(output|format|report|resume|dry-run|excel)\b/.test(option.flags)),
        ...paramOptions([]),
        // With --max-age, rows the store would answer are not counted: that needs the store and the
        // account. With --max-cost-month, the month's spend so far is read from it, as a run reads it.
        ...STORE_OPTIONS.filter((option) => !/--store-wait\b/.test(option.flags)),
        ...ACCOUNT_OPTIONS,
        { flags: '--json', description: 'the estimate as one JSON object on stdout' },
      ],
      context.io.env,
    ),
  );
  command.action(async (list: string, options: QueryOptions) => {
    const { input } = options;
    if (input === undefined) throw new UsageError('estimate needs --input FILE (or - for stdin)');
    const { runEstimate } = await import('../estimate-run.js');
    context.exitCode = await runEstimate(targetForList(list), { ...options, input }, context.io);
  });
}
