import { ALL_IDENTIFIERS, LEVEL_SPECS, META, type Level } from '../catalog/index.js';
import type { ServiceRequest } from '../client/service-client.js';
import { UsageError } from '../errors/index.js';
import { createPreparer } from '../input/prepare.js';
import { connect } from '../engine/connect.js';
import { canAnimate, type Io } from './io.js';
import type { CommandContext } from './commands/command-context.js';
import { requestOne } from '../client/request-one.js';
import { DEFAULT_MAX_WAIT_MS, DEFAULT_RETRY_POLICY } from '../client/retry-policy.js';
import { SYSTEM_CLOCK } from '../throttle/clock.js';
import { optionKey } from './options.js';
import { fixedParams } from './query-params.js';
import type { QueryOptions } from './commands/query-options.js';
import { itemToSend, sectionKeys, type QueryTarget } from '../model/query-target.js';
import { withSections } from '../model/chunk-frame.js';
import { chunkForRow } from '../batching/deduplicator.js';
import type { Exchange } from '../pipeline/send-batch.js';
import type { SendableItem } from '../batching/batch.js';
import type { OneOffStore } from './one-off-store.js';
import type { Chunk } from '../model/chunk.js';

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
  const clock = io.clock ?? SYSTEM_CLOCK;
  const item = prepared as SendableItem;
  let store: OneOffStore | undefined;
  try {
    const { openOneOffStore } = await import('./one-off-store.js');
    const { accountOf } = await import('../store/account.js');
    store = await openOneOffStore({
      target,
      item,
      options,
      io,
      connection: service.connection,
      account: accountOf(service.connection, Boolean(options.sandbox)),
      now: () => clock.now(),
      argv: context.argv,
    });
    const plan = store?.plan;
    if (plan?.kind === 'kept') {
      const chunk = chunkForRow(plan.chunk, item);
      await show(target, options, io, flags, [chunk], `${JSON.stringify([chunk])}\n`);
      return 0;
    }
    // With --max-age, sections the store keeps fresh are not bought again: only the others are asked for.
    const asked = plan?.target ?? target;
    const sent = itemToSend(asked, prepared.item);
    const spinner = await startSpinner(io, options, `querying ${asked.path}`);
    // meta exists only on POST items (spec), so a one-off that carries it is a one-item POST.
    const request: ServiceRequest =
      sent.meta === undefined
        ? { method: 'GET', path: asked.path, query: { ...sent, ...asked.query } }
        : { method: 'POST', path: asked.path, query: asked.query, items: [sent] };
    const { response, chunks, windows } = await requestOne(service.client, request, {
      policy: { ...DEFAULT_RETRY_POLICY, maxRetries: options.maxRetries, maxWaitMs: options.maxWait ?? DEFAULT_MAX_WAIT_MS.oneOff },
      clock,
      ...(io.signal ? { signal: io.signal } : {}),
      onRateLimitWait: (ms) => messages.info(`propdata: rate limit reached (HTTP 429); waiting ${Math.ceil(ms / 1000)} s for it to reset`),
      onRetry: (ms, reason) => messages.debug(`retrying in ${ms} ms after: ${reason}`),
    }).finally(() => spinner?.stop());
    if (plan) {
      const members = sectionKeys(target);
      const whole = chunks.map((chunk) => withSections(chunk, members, plan.kept));
      await show(target, options, io, flags, whole, `${JSON.stringify(whole)}\n`);
    } else {
      await show(target, options, io, flags, chunks, response.body.endsWith('\n') ? response.body : `${response.body}\n`);
    }
    if (store) {
      const exchange: Exchange = {
        target: asked,
        sent: [item],
        answers: [chunks[0]],
        status: response.status,
        headers: response.headers,
        windows,
        items: 1,
        components: asked.componentsPerItem,
        chunks,
      };
      const recording = store;
      store = undefined;
      // The answer is out and paid for: a store that fails now costs its record, not the answer.
      await recording.record(exchange).catch((error: unknown) => {
        messages.error(`propdata: warning: this answer was not recorded in the local store: ${(error as Error).message}`);
      });
    }
    return 0;
  } finally {
    await store?.close();
    await service.close();
  }
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
