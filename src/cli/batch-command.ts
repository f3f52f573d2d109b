import { writeFile } from 'node:fs/promises';
import { DEFAULT_MAX_WAIT_MS, DEFAULT_RETRY_POLICY } from '../client/retry-policy.js';
import { connect } from './connect.js';
import type { Io, Messages } from './io.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import { fixedParams, type QueryOptions } from './query-params.js';
import { EXIT, InputError, PropdataError } from '../errors/index.js';
import { inputProgress, openInput } from '../input/open-input.js';
import { checkColumnOptions, checkHeaderFeedsIdentifiers } from '../input/column-options.js';
import { delimiterName } from '../input/delimiter.js';
import { createPreparer } from '../input/prepare.js';
import type { InputRow, PreparedItem } from '../input/row.js';
import type { IdentifierRepairs } from '../input/xlsx-identifiers.js';
import { openOutput } from '../output/open-output.js';
import { SYSTEM_CLOCK } from '../throttle/clock.js';
import { DEFAULT_THROTTLE_POLICY, RateLimiter } from '../throttle/rate-limiter.js';
import { Budget } from '../pipeline/budget.js';
import { estimateRun, formatEstimate } from '../pipeline/estimate.js';
import { OrderedOutput } from '../pipeline/ordered-output.js';
import { planOutput } from '../resume/output-plan.js';
import { billedCost, pricePerItem, sectionPricesOf } from '../pipeline/pricing.js';
import { startProgress } from './progress.js';
import { runBatch } from '../pipeline/run-batch.js';
import { RunStats } from '../pipeline/run-stats.js';
import { recordProgress, writeRunState } from '../resume/run-state.js';
import { openResumeWriter } from '../output/resume-writer.js';
import { checkRunPaths } from '../output/check-paths.js';
import { lockOutput } from '../output/output-lock.js';
import { resumeCommand } from './resume-command.js';
import { sendBatch, type Exchange } from '../pipeline/send-batch.js';
import type { SendableItem } from '../batching/batch.js';
import { storePathFrom } from '../store/store-path.js';
import { openRunStore, storeKeyOf } from './run-store.js';
import { budgetLimits, resolveRunDefaults, runStorePath } from './run-defaults.js';
import { completedOutcome, formatSummary, summarize, type RunSummary } from '../pipeline/summary.js';

export interface BatchOptions extends QueryOptions {
  input: string;
  output?: string;
  format?: 'csv' | 'json' | 'jsonl' | 'xlsx';
  inputFormat?: 'csv' | 'jsonl' | 'xlsx';
  /** --delimiter, parsed: one character. */
  delimiter?: string;
  /** --encoding: a CSV input's character encoding. */
  encoding?: string;
  sheet?: string;
  sheets?: 'endpoint';
  shortNames?: boolean;
  map?: Record<string, string>;
  metaColumn?: string;
  batchSize: number;
  concurrency: number;
  rate: number;
  report?: string;
  quiet?: boolean;
  resume?: boolean;
  dedupe: boolean;
  dryRun?: boolean;
  maxComponents?: number;
  maxCost?: number;
  price?: Record<string, string>;
  excel?: boolean;
  /** --store FILE, or false for --no-store. */
  store?: string | false;
  /** --max-age in ms. */
  maxAge?: number;
  maxCostMonth?: number;
}

/**
 * Distinct answers kept for deduplication: repeats within 5,000 distinct items are caught, and
 * memory stays flat. They are the largest part of a run's live memory: 10,000 put a million-row
 * run at 1.3 times a small run's peak, 5,000 at 1.2 (BENCHMARKS.md, memory).
 */
const DEDUPE_CAPACITY = 5_000;

interface Prepared {
  rows: AsyncIterable<InputRow>;
  prepare: (row: InputRow) => PreparedItem;
  inputColumns: string[];
  /** A regular file: it may be read again (a row count, the resume identity); a pipe is read once. */
  seekable: boolean;
  metaColumn: string | undefined;
  format: 'csv' | 'jsonl' | 'xlsx';
  repairs?: IdentifierRepairs | undefined;
  /** Identifiers a spreadsheet had stripped of a leading zero, padded back (rows, first few). */
  padded: { count: number; firstRows: number[] };
}

async function prepareInput(target: QueryTarget, options: BatchOptions, params: Record<string, string>, io: Io): Promise<Prepared> {
  const input = await openInput({
    path: options.input,
    format: options.inputFormat,
    stdin: io.stdin,
    sheet: options.sheet,
    delimiter: options.delimiter,
    encoding: options.encoding,
    identifiers: { level: target.level, endpoints: target.paramEndpoints, map: options.map ?? {}, metaColumn: options.metaColumn },
  });
  if (input.detectedDelimiter !== undefined && !options.quiet) {
    io.stderr.write(
      `propdata: reading the CSV with the ${delimiterName(input.detectedDelimiter)} as its delimiter, as its header line has it (--delimiter chooses another)\n`,
    );
  }
  if (input.decodedAs !== undefined && !options.quiet) {
    io.stderr.write(
      `propdata: ${options.input} is not UTF-8: reading it as ${input.decodedAs}, as Excel saves a CSV (--encoding chooses another)\n`,
    );
  }
  const inputColumns = await input.columns;
  checkColumnOptions(inputColumns, options.map ?? {}, options.metaColumn);
  if (input.format !== 'jsonl' && !target.openKeys) {
    checkHeaderFeedsIdentifiers(inputColumns, {
      level: target.level,
      params: new Map(),
      map: options.map ?? {},
      metaColumn: options.metaColumn,
    });
  }
  const metaColumn = options.metaColumn ?? inputColumns.find((column: string) => column.toLowerCase() === 'meta');
  const padded = { count: 0, firstRows: [] as number[] };
  const prepare = createPreparer({
    onRepair: (row) => {
      padded.count += 1;
      if (padded.firstRows.length < 5) padded.firstRows.push(row);
    },
    level: target.level,
    endpoints: target.paramEndpoints,
    fixedParams: params,
    map: options.map ?? {},
    ...(metaColumn ? { metaColumn } : {}),
    ...(target.openKeys ? { openKeys: true } : {}),
  });
  return {
    rows: input.rows,
    prepare,
    inputColumns,
    metaColumn,
    format: input.format,
    seekable: input.seekable,
    repairs: input.repairs,
    padded,
  };
}

/** `--dry-run` and `propdata estimate`: read and validate everything, send nothing. */
export async function runEstimate(target: QueryTarget, options: BatchOptions, io: Io): Promise<number> {
  const { rows, prepare } = await prepareInput(target, options, fixedParams(target, options), io);
  // With --max-age, only what the store cannot answer would be sent: that is what is counted.
  const { maxAgeMs } = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const storePath = maxAgeMs === undefined ? undefined : storePathFrom(options.store, io.env);
  const kept = storePath === undefined ? undefined : await openKeptAnswers(storePath, target, options, io.env, maxAgeMs!);
  try {
    const estimate = await estimateRun(rows, prepare, {
      batchSize: target.getOnly ? 1 : options.batchSize,
      dedupeCapacity: options.dedupe ? DEDUPE_CAPACITY : 0,
      componentsPerItem: target.componentsPerItem,
      pricePerItem: pricePerItem(target, options.price),
      ratePerMinute: options.rate,
      probeComponents: DEFAULT_THROTTLE_POLICY.firstRequestComponents,
      ...(kept ? { kept: kept.has } : {}),
    });
    io.stdout.write(
      options.json ? `${JSON.stringify({ ...estimate, ratePerMinute: options.rate }, null, 2)}\n` : formatEstimate(estimate, options.rate),
    );
  } finally {
    kept?.close();
  }
  return EXIT.ok;
}

/** The store's answers for the account the credentials name, read-only: what an estimate needs of them. */
async function openKeptAnswers(path: string, target: QueryTarget, options: BatchOptions, env: Io['env'], maxAgeMs: number) {
  const { openExistingStore, currentAccount } = await import('../store/index.js');
  const store = await openExistingStore(path, { readonly: true });
  if (!store) return undefined;
  const answers = store.answers(await currentAccount(options, env));
  const keys = sectionKeys(target);
  return {
    has: (item: SendableItem) =>
      answers.get(storeKeyOf(target, item), keys, { maxAgeMs, now: Date.now(), meta: item.item.meta }) !== undefined,
    close: () => store.close(),
  };
}

/** `--input`: stream the file through the service and write one record per row. */
export async function runBatchCommand(
  target: QueryTarget,
  options: BatchOptions,
  io: Io,
  messages: Messages,
  argv: readonly string[],
): Promise<number> {
  if (options.dryRun) return runEstimate(target, options, io);
  const params = fixedParams(target, options);
  const prepared = await prepareInput(target, options, params, io);
  const { seekable } = prepared;
  if (!seekable && !options.quiet)
    messages.info('propdata: the input is a pipe: read once, so no row total, and the run cannot be resumed');
  checkRunPaths({
    input: options.input,
    ...(options.output ? { output: options.output } : {}),
    ...(options.report ? { report: options.report } : {}),
  });
  // One writer per output: taken before the existing file is checked, cut or merged.
  // A failing output (a reader closing the pipe, a full disk, a lost lock) stops the run at once, not at the next write.
  const outputFailure = new AbortController();
  const lock = isFileOutput(options.output) ? await lockOutput(options.output, (error) => outputFailure.abort(error)) : undefined;
  try {
    if (lock?.tookOverFrom) messages.info(`propdata: took over the lock of ${lock.tookOverFrom}, which is no longer running`);
    return await runLocked(target, options, { io, messages, argv, outputFailure }, prepared, params);
  } finally {
    await lock?.release();
  }
}

const isFileOutput = (path: string | undefined): path is string => path !== undefined && path !== '-';

/** The batch proper, once its output is ours alone. */
async function runLocked(
  target: QueryTarget,
  options: BatchOptions,
  { io, messages, argv, outputFailure }: { io: Io; messages: Messages; argv: readonly string[]; outputFailure: AbortController },
  { rows, prepare, inputColumns, metaColumn, seekable, repairs, padded }: Prepared,
  params: Record<string, string>,
): Promise<number> {
  const keys = sectionKeys(target);
  const plan = await planOutput(
    { ...options, inputSeekable: seekable },
    {
      path: target.path,
      query: target.query,
      sections: keys,
      params,
      map: options.map ?? {},
      metaColumn: metaColumn ?? null,
      columns: inputColumns,
      excel: Boolean(options.excel),
      ...(options.sheet !== undefined ? { sheet: options.sheet } : {}),
    },
  );
  if (plan.overwritesPartial) {
    messages.error(
      `propdata: warning: starting ${options.output} over: an earlier run left it partial (${plan.overwritesPartial.records} records); ` +
        'to continue it instead, stop now (Ctrl-C) and run the same command with --resume',
    );
  }
  if (plan.alreadyComplete) {
    messages.info(`propdata: nothing to resume: ${options.output} is complete`);
    return EXIT.ok;
  }
  const itemPrice = pricePerItem(target, options.price);
  const sectionPrices = sectionPricesOf(target, options.price);
  const runDefaults = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const storePath = runStorePath(options.store, io.env, runDefaults);
  const maxWaitMs = options.maxWait ?? DEFAULT_MAX_WAIT_MS.batch;
  const service = await connect(options, io, messages, options.concurrency);
  const clock = io.clock ?? SYSTEM_CLOCK;
  const runStore = storePath
    ? await openRunStore({
        path: storePath,
        connection: service.connection,
        sandbox: Boolean(options.sandbox),
        target,
        sectionKeys: keys,
        maxAgeMs: runDefaults.maxAgeMs,
        prices: sectionPrices,
        now: () => clock.now(),
      }).catch(async (error: unknown) => {
        await service.close();
        throw error;
      })
    : undefined;
  const budget = new Budget(
    budgetLimits(options, runDefaults, () => runStore!.monthToDateCost()),
    itemPrice,
    target.componentsPerItem,
  );
  const stats = new RunStats(clock);
  try {
    const tooSmall = budget.tooSmallForOneItem();
    if (tooSmall) throw tooSmall;
    // The progress bar measures the read by bytes of the file (none for a pipe): no second read.
    stats.input = inputProgress(rows);
    const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY, initialPerMinute: options.rate, maxWaitMs }, clock);
    // The windows an earlier run saw: this one starts at that pace, without a probe.
    const remembered = runStore?.windows();
    if (remembered) limiter.remember(remembered);
    // Other runs of this account on this machine: one pacer for all, through the store.
    if (runStore) limiter.shareWith(runStore.pacer());
    if (plan.state) await writeRunState(options.output!, plan.state);
    const settings = {
      path: options.output,
      format: options.format,
      stdout: io.stdout,
      inputColumns,
      level: target.level,
      sections: keys,
      withMeta: metaColumn !== undefined,
      append: plan.append,
      excel: Boolean(options.excel),
      sheets: options.sheets,
      shortNames: Boolean(options.shortNames),
    };
    const writer = plan.state
      ? await openResumeWriter({ ...settings, path: options.output!, startRow: plan.startRow, retryRows: plan.retryRows })
      : await openOutput(settings);
    if (plan.retryRows.length > 0)
      messages.info(`propdata: sending ${plan.retryRows.length} rows again whose records are error (the first: row ${plan.retryRows[0]})`);
    const progress = await startProgress(io, stats, limiter, Boolean(options.quiet));
    const output = new OrderedOutput(writer, stats, { startRow: plan.startRow, retry: plan.retryRows });
    writer.failed.catch((error: unknown) => outputFailure.abort(error));
    const stop = new AbortController();
    const forwardFailure = () => stop.abort(outputFailure.signal.reason);
    if (outputFailure.signal.aborted) forwardFailure();
    outputFailure.signal.addEventListener('abort', forwardFailure, { once: true });
    const forwardSignal = () => stop.abort(io.signal?.reason);
    if (io.signal?.aborted) forwardSignal();
    io.signal?.addEventListener('abort', forwardSignal, { once: true });
    // A stop is acknowledged at once: nothing new is sent, and the requests in flight are named.
    const acknowledgeStop = () => {
      progress.stop();
      messages.error(`propdata: stopping: finishing ${stats.requestsInFlight} requests in flight; Ctrl-C again to abort`);
    };
    io.signal?.addEventListener('abort', acknowledgeStop, { once: true });
    let result;
    try {
      result = await runBatch(
        rows,
        prepare,
        (items, signal, deliver) =>
          sendBatch(
            items,
            {
              client: service.client,
              limiter,
              target,
              sectionKeys: keys,
              retry: { ...DEFAULT_RETRY_POLICY, maxRetries: options.maxRetries, maxWaitMs },
              stats,
              clock,
              signal,
              abandon: outputFailure.signal,
              budget,
              onRetry: (reason) => messages.debug(`retrying a batch after: ${reason}`),
              onResponse: (exchange: Exchange) => {
                stats.costUsd += billedCost(exchange.chunks, sectionPrices).cost;
                runStore?.record(exchange);
              },
            },
            runStore
              ? (part, records, answer) => {
                  runStore.remember(part, records);
                  deliver(part, records, answer);
                }
              : deliver,
          ),
        output,
        stats,
        {
          batchSize: target.getOnly ? 1 : options.batchSize,
          concurrency: options.concurrency,
          maxHoldRows: Math.max(1_000, options.batchSize * options.concurrency * 4),
          dedupeCapacity: options.dedupe ? DEDUPE_CAPACITY : 0,
          startRow: plan.startRow,
          retryRows: plan.retryRows,
          signal: stop.signal,
          sectionKeys: keys,
          ...(runStore ? { reuse: (item: SendableItem) => runStore.reuse(item) } : {}),
        },
      );
    } finally {
      io.signal?.removeEventListener('abort', acknowledgeStop);
      io.signal?.removeEventListener('abort', forwardSignal);
      progress.stop();
      await writer.close();
    }

    const failure: unknown = outputFailure.signal.aborted ? outputFailure.signal.reason : undefined;
    const fatal = failure ?? result.fatal;
    const interrupted = result.interrupted && failure === undefined;
    const failures = stats.byStatus.invalid_input + stats.byStatus.error;
    const finished = fatal === undefined && !interrupted;
    // The file holds the earlier run's records and this run's: up to the last row written.
    if (plan.state) await recordProgress(options.output!, plan.state, Math.max(plan.startRow, output.nextRow) - 1, finished);
    const outcome: RunSummary['outcome'] = !finished ? (fatal === undefined ? 'interrupted' : 'stopped') : completedOutcome(stats.byStatus);
    const summary = summarize(stats, limiter, outcome, {
      componentsSaved: result.componentsSaved * target.componentsPerItem,
      fromStore: stats.fromStore,
      savedByStore: Math.round(stats.fromStore * itemPrice * 100) / 100,
      ...(fatal !== undefined ? { stoppedBecause: messages.redact(fatal instanceof Error ? fatal.message : JSON.stringify(fatal)) } : {}),
      ...(!finished ? { nextRow: output.nextRow } : {}),
    });
    // An xlsx input's identifier cells that were numbers, made text again: reported with the summary.
    const repaired = repairs?.report();
    const reported = {
      ...summary,
      ...(repaired ? { inputRepairs: repaired } : {}),
      ...(padded.count > 0 ? { paddedIdentifiers: padded } : {}),
    };
    const paddedLine =
      padded.count > 0
        ? `  ${padded.count} identifiers padded with the leading zero a spreadsheet had dropped (rows ${padded.firstRows.join(', ')}${padded.count > padded.firstRows.length ? ', ...' : ''})`
        : undefined;
    await writer.finish?.(reported);
    if (options.report) await writeFile(options.report, `${JSON.stringify(reported, null, 2)}\n`);
    if (!options.quiet || outcome !== 'completed')
      messages.error([formatSummary(summary).trimEnd(), repairs?.describe(), paddedLine].filter(Boolean).join('\n'));
    if (fatal instanceof InputError) {
      messages.error(
        `propdata: the output is partial (rows from ${output.nextRow} on are missing); correct the input and run the command again`,
      );
    } else if (!finished && plan.state) {
      const resume = resumeCommand(argv);
      messages.error(`propdata: the output is partial; continue with:\n  ${resume.command}`);
      if (resume.note) messages.error(`  ${resume.note}`);
    }

    if (fatal !== undefined) {
      if (fatal instanceof PropdataError) return fatal.exitCode;
      throw fatal instanceof Error ? fatal : new Error(JSON.stringify(fatal));
    }
    if (interrupted) return EXIT.interrupted;
    return failures > 0 ? EXIT.someItemsFailed : EXIT.ok;
  } finally {
    runStore?.close(stats.fromStore, itemPrice);
    await service.close();
  }
}
