import type { Command } from 'commander';
import { storeForMessages } from '../../config/database-url.js';
import type { Usage, UsageFigures } from '../../store/index.js';
import { monthOf, USAGE_GROUPINGS, type UsageRows } from '../../store/spend.js';
import { Chalk } from 'chalk';
import { SYSTEM_CLOCK } from '../../throttle/clock.js';
import { resolveRunDefaults } from '../run-defaults.js';
import type { DayCost } from './month-projection.js';
import { usageChart } from './usage-chart.js';
import { addOptions } from '../add-options.js';
import { ACCOUNT_OPTIONS, pastTime, positiveNumber, STORE_FILE_OPTIONS } from '../options.js';
import type { OptionSpec, OptionValues } from '../../options/option-spec.js';
import type { CommandContext } from './command-context.js';
import { checkAccountIn, REPORT_ACCOUNT_OPTION, reportedAccount } from './report-account.js';
import { textTable } from './text-table.js';
import { terminalWidth } from '../io.js';

const USAGE_OPTIONS = [
  {
    flags: '--since <when>',
    description: 'from then on: a time back (30d, 12h) or a UTC date (2026-11-01); default everything recorded',
    parse: pastTime,
  },
  {
    flags: '--by <grouping>',
    description: "what a row totals; key: a gateway's client keys (propdata serve), what each bought and took from the store",
    choices: [...USAGE_GROUPINGS, 'key'],
    defaultValue: 'month',
  },
  { flags: '--json', description: 'print {"total": {...}, "rows": [...]} as JSON' },
  {
    flags: '--max-cost-month <usd>',
    description: "the month's budget a terminal's chart (--by day or month) is drawn against (default: config max-cost-month)",
    parse: positiveNumber,
  },
  { flags: '--all-accounts', description: "every account in the store, not only the current credentials'" },
  REPORT_ACCOUNT_OPTION,
  ...STORE_FILE_OPTIONS,
  ...ACCOUNT_OPTIONS,
] as const satisfies readonly OptionSpec[];

const EMPTY: Usage = { total: { requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 }, rows: [] };

const HEADINGS: Readonly<Record<UsageRows, string>> = { day: 'DAY', month: 'MONTH', endpoint: 'ENDPOINT', run: 'RUN', key: 'KEY' };

function cells(label: string, figures: UsageFigures): string[] {
  const { requests, components, billed, cost, fromStore, saved } = figures;
  return [label, String(requests), String(components), String(billed), cost.toFixed(2), String(fromStore), saved.toFixed(2)];
}

/** `width`: a terminal's; a run's name (its start, process and command) wraps within its column there. */
function formatUsage(usage: Usage, by: UsageRows, width: number | undefined): string {
  const rows = [
    [HEADINGS[by], 'REQUESTS', 'COMPONENTS', 'BILLED', 'COST USD', 'FROM STORE', 'SAVED USD'],
    ...usage.rows.map((row) => cells(row.key, row)),
    cells('TOTAL', usage.total),
  ];
  return textTable(rows, { rightAligned: [1, 2, 3, 4, 5, 6], width, flexible: [0] });
}

export function registerUsageCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('usage')
    .usage('[--since 30d|2026-11-01] [--by day|month|endpoint|run|key] [--account A|--all-accounts] [--json]')
    .description(
      'what was sent and billed, and what the store saved: requests, components, billed sections, cost at list price, rows from the store',
    )
    .addHelpText(
      'after',
      [
        '',
        'Days and months are UTC. Cost is at list price (the catalog, or --price when the run gave it).',
        "The current credentials' account by default; with none configured, every account.",
        'In a terminal, --by day and --by month draw the cost as bars, against the monthly budget',
        '(--max-cost-month, else config max-cost-month) when one is set; a pipe gets the table.',
        '',
        'Examples:',
        '  $ propdata usage',
        '  $ propdata usage --since 30d --by day',
        '  $ propdata usage --by day --max-cost-month 150',
        '  $ propdata usage --since 2026-11-01 --by endpoint --json',
        '  $ propdata usage --all-accounts --by run',
        '  $ propdata usage --by key --since 2026-11-01',
        '  $ propdata usage --account "sandbox (built in)"',
      ].join('\n'),
    );
  addOptions(command, USAGE_OPTIONS, context.io.env);
  command.action(async (options: OptionValues<typeof USAGE_OPTIONS>) => {
    const { io } = context;
    const { openExistingStore, storePathFrom } = await import('../../store/index.js');
    const account = await reportedAccount(options, io.env);
    const path = storePathFrom(options.store, io.env);
    const store = await openExistingStore(path, { readonly: true });
    const width = terminalWidth(io.stdout);
    // A chart for a terminal; a pipe or a file gets the table, one greppable line a row.
    const chart = !options.json && width !== undefined && (options.by === 'day' || options.by === 'month');
    const now = (io.clock ?? SYSTEM_CLOCK).now();
    let usage: Usage;
    let days: DayCost[] = [];
    try {
      if (store && options.account !== undefined) await checkAccountIn(store, options.account);
      const whose = account ? { account } : {};
      const query = { ...(options.since === undefined ? {} : { since: options.since }), ...whose };
      const by = options.by;
      usage = (await (by === 'key' ? store?.keys.usage(query) : store?.usage({ by, ...query }))) ?? EMPTY;
      // This month and the last, by day: the month's projection takes its pace from them (month-projection.ts).
      if (store && chart) days = (await store.usage({ by: 'day', since: monthOf(monthOf(now)[0] - 1)[0], ...whose })).rows;
    } finally {
      await store?.close();
    }
    if (options.json) {
      const rows = usage.rows.map(({ key, ...figures }) => ({ [options.by]: key, ...figures }));
      io.stdout.write(`${JSON.stringify({ total: usage.total, rows }, null, 2)}\n`);
      return;
    }
    if (chart) {
      const { maxCostMonth } = await resolveRunDefaults({ maxCostMonth: options.maxCostMonth }, async () =>
        (await import('../../config/config-file.js')).readConfigFile(io.env),
      );
      const paint = new Chalk({ level: io.env.NO_COLOR ? 0 : 1 });
      io.stdout.write(usageChart({ by: options.by, usage, width, now, days, budget: maxCostMonth, paint }));
    } else io.stdout.write(formatUsage(usage, options.by, width));
    const whose = account ? `account ${account} (--all-accounts for every one)` : 'every account';
    io.stdout.write(`\n${store ? whose : `nothing recorded yet: no store at ${storeForMessages(path)}`}\n`);
  });
}
