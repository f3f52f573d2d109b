import { ALL_IDENTIFIERS, LEVEL_SPECS, META, type Level } from '../catalog/index.js';
import { DEFAULT_MAX_WAIT_MS } from '../policy/policy.js';
import { isDatabaseUrl } from '../config/database-url.js';
import type { Service } from '../engine/connect.js';
import { connect } from '../engine/connect.js';
import { JOB_DEFAULTS } from '../engine/job-defaults.js';
import { runOneItem } from '../engine/run-one-item.js';
import { UsageError } from '../errors/index.js';
import { createPreparer } from '../input/prepare.js';
import type { Chunk } from '../model/chunk.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import { SYSTEM_CLOCK } from '../throttle/clock.js';
import type { CommandContext } from './commands/command-context.js';
import type { QueryOptions } from './commands/query-options.js';
import { canAnimate, type Io } from './io.js';
import { optionKey } from './options.js';
import { fixedParams } from './query-params.js';
import { commandLine } from './resume-command.js';
import { resolveRunDefaults, runStorePath } from './run-defaults.js';

/** The identifier flags given on the command line, as a row with catalog names. */
function identifiersFromFlags(level: Level, options: QueryOptions, every = false): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  // `call` sends every identifier flag it is given, whatever the level (reports: not shown in the spec).
  const names = every ? ALL_IDENTIFIERS : [...LEVEL_SPECS[level].identifiers, META].map((identifier) => identifier.name);
  for (const name of names) {
    const value = options[optionKey(name)];
    if (value !== undefined) columns[name] = value;
  }
  return columns;
}

/** A query command: a batch when --input is given, else a one-off GET for the item on the command line. */
export async function runQuery(target: QueryTarget, options: QueryOptions, context: CommandContext): Promise<number> {
  const { io, messages } = context;
  const { input } = options;
  if (input !== undefined) {
    const { runBatchCommand } = await import('./batch-command.js');
    // Every query command carries the batch options (QUERY_OPTIONS), with their defaults.
    return runBatchCommand(target, { ...options, input }, io, messages, context.argv);
  }
  const prepare = createPreparer({
    level: target.level,
    endpoints: target.paramEndpoints,
    fixedParams: fixedParams(target, options),
    map: {},
    fromFlags: true,
    ...(target.openKeys ? { openKeys: true } : {}),
  });
  const flags = identifiersFromFlags(target.level, options, target.openKeys);
  // No identifier at all: the items may be in a file (`--input`), or on stdin
  // (`cat f.csv | propdata property value`), which a batch reads only with `--input -`.
  const none = Object.keys(flags).length === 0;
  const batch = none ? ' (or pass --input FILE for a batch)' : '';
  const piped = none && io.stdin.isTTY !== true ? '; stdin is not a terminal: to read rows from it, add --input -' : '';
  const prepared = prepare({ row: 1, columns: flags });
  if (!prepared.item) throw new UsageError(`${prepared.invalid ?? 'invalid item'}${batch}${piped}`);
  if (LEVEL_SPECS[target.level].identifiers.length === 0 && Object.keys(prepared.item).length === 0) {
    throw new UsageError(
      `${target.path} got no identifiers: give them as flags (--address ... --zipcode ...) or --param name=value${piped}`,
    );
  }

  const service = await connect(options, { env: io.env, log: messages });
  try {
    const store = await oneOffStore(options, context, service);
    const spinner = await startSpinner(io, options, `querying ${target.path}`);
    const answer = await runOneItem({
      target,
      item: prepared,
      service,
      ...(store ? { store } : {}),
      caps: { maxComponents: options.maxComponents, maxCost: options.maxCost, maxCostMonth: store?.maxCostMonth },
      ...(options.price ? { prices: options.price } : {}),
      pace: {
        batchSize: 1,
        concurrency: 1,
        ratePerMinute: options.rate,
        dedupe: false,
        maxRetries: options.maxRetries,
        maxWaitMs: options.maxWait ?? DEFAULT_MAX_WAIT_MS.oneOff,
      },
      clock: io.clock ?? SYSTEM_CLOCK,
      ...(io.signal ? { signal: io.signal } : {}),
      events: {
        rateLimitWait: (ms) => messages.info(`propdata: rate limit reached (HTTP 429); waiting ${Math.ceil(ms / 1000)} s for it to reset`),
        retry: (reason) => messages.debug(`retrying after: ${reason}`),
      },
    }).finally(() => spinner?.stop());
    // As the service sent it, when it all came from its answer; else the chunk with what the store kept in it.
    const body = answer.body ?? JSON.stringify([answer.chunk]);
    await show(target, options, io, flags, [answer.chunk], body.endsWith('\n') ? body : `${body}\n`);
    return 0;
  } finally {
    await service.close();
  }
}

/**
 * Where a one-off keeps its answer and spend, undefined with --no-store: the store a batch uses,
 * opened as a batch opens it when the one-off looks something up (--max-age, --max-cost-month), when
 * it is a database, or when another process has the file open (a job it must pace and claim beside);
 * otherwise left unopened, the record left beside it (opening the file costs a third of a one-off's time).
 */
async function oneOffStore(options: QueryOptions, context: CommandContext, service: Service) {
  const { io } = context;
  const defaults = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const path = runStorePath(options.store, io.env, defaults);
  if (path === undefined) return undefined;
  const [{ accountOf }, { journalDirFor }, { openElsewhere }] = await Promise.all([
    import('../store/account.js'),
    import('../store/store-path.js'),
    import('../store/sqlite/open-elsewhere.js'),
  ]);
  const looksUp = defaults.maxAgeMs !== undefined || defaults.maxCostMonth !== undefined;
  return {
    path,
    account: accountOf(service.connection, Boolean(options.sandbox)),
    ...(defaults.maxAgeMs !== undefined ? { maxAgeMs: defaults.maxAgeMs } : {}),
    maxCostMonth: defaults.maxCostMonth,
    runLabel: commandLine(context.argv),
    journal: journalDirFor(path, io.env),
    outageWaitMs: options.storeWait ?? JOB_DEFAULTS.storeWaitMs,
    beside: !looksUp && !isDatabaseUrl(path) && !openElsewhere(path),
  };
}

/** The answer as asked: a record in a file or format (--output, --format), the body as JSON, or a view for a terminal. */
async function show(
  target: QueryTarget,
  options: QueryOptions,
  io: Io,
  flags: Record<string, unknown>,
  chunks: readonly Chunk[],
  body: string,
) {
  const { output, format } = options;
  if (output !== undefined || format !== undefined) {
    await writeRecords(target, options, io, flags, chunks);
  } else if (options.json || !io.stdout.isTTY) {
    io.stdout.write(body);
  } else {
    const { renderChunks } = await import('../output/render-chunk.js');
    io.stdout.write(renderChunks(chunks, { color: !io.env.NO_COLOR }));
  }
}

/**
 * `--output` or `--format` on a one-off: the answer written as a batch of one would write it.
 * The identifier flags given are the input columns (catalog names, in the catalog's order), the
 * record is row 1 and its status comes from the sections' api_codes.
 */
async function writeRecords(target: QueryTarget, options: QueryOptions, io: Io, flags: Record<string, unknown>, chunks: readonly Chunk[]) {
  const [{ openOutput }, { statusOf }] = await Promise.all([import('../output/open-output.js'), import('../model/status.js')]);
  const keys = sectionKeys(target);
  const writer = await openOutput({
    ...(options.output !== undefined ? { path: options.output } : {}),
    ...(options.format !== undefined ? { format: options.format } : {}),
    stdout: io.stdout,
    inputColumns: Object.keys(flags),
    level: target.level,
    sections: keys,
    withMeta: flags[META.name] !== undefined,
    append: false,
    excel: Boolean(options.excel),
    shortNames: Boolean(options.shortNames),
  });
  for (const [index, chunk] of chunks.entries()) {
    await writer.write({ row: index + 1, status: statusOf(chunk, keys), input: flags, chunk });
  }
  await writer.close();
  await writer.finish?.({ rows: chunks.length });
}

/** An ora spinner on stderr while the one-off waits, only where a person is watching. */
async function startSpinner(io: Io, options: QueryOptions, text: string) {
  // TERM=dumb: a terminal that cannot move its cursor gets no animation.
  if (!canAnimate(io.stderr) || io.env.TERM === 'dumb' || options.json || options.verbose) return undefined;
  const { default: ora } = await import('ora');
  // ora's stdin discarding puts the terminal in raw mode, where Ctrl-C is a keystroke rather than
  // the SIGINT our clean stop relies on.
  // Whether to animate is decided above, from the stream we were given; ora's own guess (it turns
  // itself into plain `- text` lines when CI is set) would print a stray line on a real terminal.
  return ora({ text, stream: io.stderr, discardStdin: false, isEnabled: true }).start();
}
