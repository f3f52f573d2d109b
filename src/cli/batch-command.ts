import { resolve } from 'node:path';
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
import { DEFAULT_THROTTLE_POLICY } from '../throttle/policy.js';
import { RateLimiter } from '../throttle/rate-limiter.js';
import { Budget } from '../pipeline/budget.js';
import { estimateRun, formatEstimate } from '../pipeline/estimate.js';
import { OrderedOutput } from '../pipeline/ordered-output.js';
import { planOutput } from '../resume/output-plan.js';
import { billedCost, pricePerItem, sectionPricesOf } from '../pipeline/pricing.js';
import { startProgress } from './progress.js';
import { runBatch, type BatchRunResult } from '../pipeline/run-batch.js';
import { RunStats } from '../pipeline/run-stats.js';
import { recordProgress, settingsDigest, writeRunState } from '../resume/run-state.js';
import { STATUSES, type Status } from '../model/status.js';
import { accountId, accountOf } from '../store/account.js';
import { openResumeWriter } from '../resume/resume-writer.js';
import { checkRunPaths } from '../output/check-paths.js';
import { writeReport } from '../output/report-file.js';
import { lockOutput } from '../output/output-lock.js';
import { resumeCommand } from './resume-command.js';
import { sendBatch, type Exchange } from '../pipeline/send-batch.js';
import { storePathFrom } from '../store/store-path.js';
import { lackingIn, openRunStore, type RunStore, type RunStoreSettings } from './run-store.js';
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
  const params = fixedParams(target, options);
  const { rows, prepare, inputColumns, metaColumn } = await prepareInput(target, options, params, io);
  const runDefaults = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const sectionPrices = sectionPricesOf(target, options.price);
  // Only what the store cannot answer would be sent: what an unfinished run of this job bought, and
  // with --max-age what is younger. Nothing is counted for --max-cost-month without a store.
  const storePath = storePathFrom(options.store, io.env);
  const kept =
    storePath === undefined
      ? undefined
      : await openStoreToEstimate(
          storePath,
          target,
          options,
          io.env,
          runDefaults.maxAgeMs,
          jobOf(options, recordShapeOf(target, options, params, inputColumns, metaColumn)),
        );
  try {
    const monthToDate = kept && runDefaults.maxCostMonth !== undefined ? await kept.monthToDateCost() : 0;
    const estimate = await estimateRun(rows, prepare, {
      target,
      batchSize: target.getOnly ? 1 : options.batchSize,
      dedupeCapacity: options.dedupe ? DEDUPE_CAPACITY : 0,
      sectionPrices,
      ratePerMinute: options.rate,
      probeComponents: DEFAULT_THROTTLE_POLICY.firstRequestComponents,
      limits: budgetLimits(options, runDefaults, () => monthToDate),
      ...(kept ? { lacking: kept.lacking } : {}),
    });
    io.stdout.write(
      options.json ? `${JSON.stringify({ ...estimate, ratePerMinute: options.rate }, null, 2)}\n` : formatEstimate(estimate, options.rate),
    );
  } finally {
    await kept?.close();
  }
  return EXIT.ok;
}

/** The store read only, for the account the credentials name: what an estimate needs of it. Undefined when there is no store yet. */
async function openStoreToEstimate(
  path: string,
  target: QueryTarget,
  options: BatchOptions,
  env: Io['env'],
  maxAgeMs: number | undefined,
  job: string,
) {
  const { openExistingStore, currentAccount } = await import('../store/index.js');
  // An estimate needs no credentials: without them, no account's answers are counted as kept.
  const account = await currentAccount(options, env).catch((error: unknown) => {
    if (error instanceof PropdataError && error.code === 'E_NO_CREDENTIALS') return undefined;
    throw error;
  });
  const store = account === undefined ? undefined : await openExistingStore(path, { readonly: true });
  if (!store || account === undefined) return undefined;
  try {
    const since = await store.jobSince(account, job);
    return {
      lacking: lackingIn(store, account, target, { maxAgeMs, since }),
      monthToDateCost: () => store.monthToDateCost(account),
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Everything that shapes the records (endpoint, parameters, columns...): a resume and a job need it unchanged. */
function recordShapeOf(
  target: QueryTarget,
  options: BatchOptions,
  params: Record<string, string>,
  columns: readonly string[],
  metaColumn: string | undefined,
) {
  return {
    path: target.path,
    query: target.query,
    sections: sectionKeys(target),
    params,
    map: options.map ?? {},
    metaColumn: metaColumn ?? null,
    columns,
    excel: Boolean(options.excel),
    ...(options.sheet !== undefined ? { sheet: options.sheet } : {}),
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

function addCounts(a: Record<Status, number>, b: Record<Status, number>): Record<Status, number> {
  return Object.fromEntries(STATUSES.map((status) => [status, a[status] + b[status]])) as Record<Status, number>;
}

/**
 * The job a run belongs to: the same command (endpoint, options that shape the records) on the same
 * input and output. Until it writes every row with a final answer, each run of it continues it.
 */
function jobOf(options: BatchOptions, recordShape: object): string {
  const where = (path: string | undefined) => (path === undefined || path === '-' ? '-' : resolve(path));
  return settingsDigest({ input: where(options.input), output: where(options.output), shape: recordShape, format: options.format ?? null });
}

/** The store for a batch run, opened (and created) where the path says. */
async function openBatchStore(path: string, settings: Omit<RunStoreSettings, 'store'>): Promise<RunStore> {
  const { openStore } = await import('../store/index.js');
  const store = await openStore(path, { now: () => settings.clock.now() });
  try {
    return await openRunStore({ ...settings, store });
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** What the store met that the user should know once: damaged answers bought again, a damaged file. */
function storeLines(runStore: RunStore | undefined): string | undefined {
  if (!runStore) return undefined;
  const { damaged, notes } = runStore.problems();
  const lines = [
    ...(damaged > 0 ? [`  ${damaged} kept answers could not be read (damaged): they were bought again and replaced`] : []),
    ...notes.map((note) => `  store: ${note}`),
  ];
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The batch proper, once its output is ours alone. */
async function runLocked(
  target: QueryTarget,
  options: BatchOptions,
  { io, messages, argv, outputFailure }: { io: Io; messages: Messages; argv: readonly string[]; outputFailure: AbortController },
  { rows, prepare, inputColumns, metaColumn, seekable, repairs, padded }: Prepared,
  params: Record<string, string>,
): Promise<number> {
  const keys = sectionKeys(target);
  const recordShape = recordShapeOf(target, options, params, inputColumns, metaColumn);
  const runDefaults = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const storePath = runStorePath(options.store, io.env, runDefaults);
  const plan = await planOutput({ ...options, inputSeekable: seekable }, recordShape);
  // A complete output holds the answers it can: only an age limit makes rewriting it worth anything.
  if (plan.complete && runDefaults.maxAgeMs === undefined) {
    messages.info(`propdata: nothing to resume: ${options.output} is complete (with --max-age, --resume refreshes it from the store)`);
    return EXIT.ok;
  }
  const fromStore = storePath === undefined ? '' : ' (what earlier runs bought comes from the store)';
  if (plan.afresh) messages.info(`propdata: --resume: ${plan.afresh}; writing ${options.output ?? 'the output'} afresh${fromStore}`);
  if (plan.overwritesPartial && storePath === undefined) {
    messages.error(
      `propdata: warning: starting ${options.output} over: an earlier run left it partial (${plan.overwritesPartial.records} records); ` +
        'to continue it instead, stop now (Ctrl-C) and run the same command with --resume',
    );
  } else if (plan.overwritesPartial) {
    messages.info(
      `propdata: starting ${options.output} over: an earlier run left it partial (${plan.overwritesPartial.records} records)${fromStore}; --resume appends to it instead`,
    );
  }
  const itemPrice = pricePerItem(target, options.price);
  const sectionPrices = sectionPricesOf(target, options.price);
  const maxWaitMs = options.maxWait ?? DEFAULT_MAX_WAIT_MS.batch;
  const service = await connect(options, io, messages, options.concurrency);
  const clock = io.clock ?? SYSTEM_CLOCK;
  const runStore = storePath
    ? await openBatchStore(storePath, {
        account: accountOf(service.connection, Boolean(options.sandbox)),
        ...(options.sandbox ? { pacingAccount: accountId(service.connection.baseUrl, service.connection.key) } : {}),
        target,
        maxAgeMs: runDefaults.maxAgeMs,
        job: jobOf(options, recordShape),
        prices: sectionPrices,
        clock,
        argv,
      }).catch(async (error: unknown) => {
        await service.close();
        throw error;
      })
    : undefined;
  const monthToDate = runStore && runDefaults.maxCostMonth !== undefined ? await runStore.monthToDateCost() : 0;
  const budget = new Budget(
    budgetLimits(options, runDefaults, () => monthToDate),
    { components: target.componentsPerItem, price: itemPrice },
  );
  const stats = new RunStats(clock);
  let result: BatchRunResult | undefined;
  try {
    const tooSmall = budget.tooSmallForOneItem();
    if (tooSmall) throw tooSmall;
    // The progress bar measures the read by bytes of the file (none for a pipe): no second read.
    stats.input = inputProgress(rows);
    const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY, initialPerMinute: options.rate, maxWaitMs }, clock);
    // The windows an earlier run saw: this one starts at that pace, without a probe.
    const remembered = await runStore?.windows();
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
      messages.info(
        `propdata: sending ${plan.retryRows.length} rows again whose records are error or not_sent (the first: row ${plan.retryRows[0]})`,
      );
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
    try {
      result = await runBatch(
        rows,
        prepare,
        (items, batchTarget, signal, deliver) =>
          sendBatch(
            items,
            batchTarget,
            {
              client: service.client,
              limiter,
              sectionPrices,
              retry: { ...DEFAULT_RETRY_POLICY, maxRetries: options.maxRetries, maxWaitMs },
              stats,
              clock,
              signal,
              // A file that fails (a full disk) with a store beside it: requests in flight finish
              // and their answers are kept for the next run. Otherwise (no store, or stdout's reader
              // gone, as with `| head`) an answer nobody can take is not waited for.
              ...(runStore && isFileOutput(options.output) ? {} : { abandon: outputFailure.signal }),
              budget,
              onRetry: (reason) => messages.debug(`retrying a batch after: ${reason}`),
              onResponse: (exchange: Exchange) => {
                stats.costUsd += billedCost(exchange.chunks, sectionPrices).cost;
                runStore?.kept.record(exchange);
              },
            },
            deliver,
          ),
        output,
        stats,
        {
          target,
          clock,
          batchSize: target.getOnly ? 1 : options.batchSize,
          concurrency: options.concurrency,
          maxHoldRows: Math.max(1_000, options.batchSize * options.concurrency * 4),
          dedupeCapacity: options.dedupe ? DEDUPE_CAPACITY : 0,
          startRow: plan.startRow,
          retryRows: plan.retryRows,
          signal: stop.signal,
          ...(runStore ? { kept: runStore.kept } : {}),
        },
      );
    } finally {
      io.signal?.removeEventListener('abort', acknowledgeStop);
      io.signal?.removeEventListener('abort', forwardSignal);
      progress.stop();
      // An output that fails as it closes (a full disk) is a stop like any other: what the store
      // keeps is not lost, and the summary still says where the run got to.
      const closing: unknown = await writer.close().then(
        () => undefined,
        (error: unknown) => error,
      );
      if (closing !== undefined && !outputFailure.signal.aborted) outputFailure.abort(closing);
    }

    const failure: unknown = outputFailure.signal.aborted ? outputFailure.signal.reason : undefined;
    const fatal = failure ?? result.fatal;
    const interrupted = result.interrupted && failure === undefined;
    const finished = fatal === undefined && !interrupted;
    // Stdout's reader went away (`| head`): nobody reads a summary there; one line says why it ended.
    if (failure instanceof Error && !isFileOutput(options.output)) throw failure;
    // The file holds the earlier runs' records and this run's: up to the last row written.
    const fileRecords = plan.earlier ? addCounts(plan.earlier, stats.byStatus) : { ...stats.byStatus };
    const failures = fileRecords.invalid_input + fileRecords.error;
    // A run state that cannot be updated (a full disk) leaves the last one: --resume checks the file against it.
    const stateNotKept: unknown = plan.state
      ? await recordProgress(options.output!, plan.state, Math.max(plan.startRow, output.nextRow) - 1, finished).then(
          () => undefined,
          (error: unknown) => error,
        )
      : undefined;
    // Every row has its final answer: the next run of this command is a new job (--max-age decides what it reuses).
    if (finished && fileRecords.error === 0) await runStore?.finishJob();
    const outcome: RunSummary['outcome'] = !finished ? (fatal === undefined ? 'interrupted' : 'stopped') : completedOutcome(fileRecords);
    const summary = summarize(stats, limiter, outcome, {
      records: fileRecords,
      ...(plan.earlier ? { recordsThisRun: { ...stats.byStatus } } : {}),
      ...(isFileOutput(options.output) ? { output: options.output } : {}),
      componentsSaved: result.componentsSaved * target.componentsPerItem,
      fromStore: stats.fromStore,
      savedByStore: Math.round(result.savedByStore.usd * 100) / 100,
      ...(fatal !== undefined ? { stoppedBecause: messages.redact(fatal instanceof Error ? fatal.message : JSON.stringify(fatal)) } : {}),
      ...(!finished ? { nextRow: output.nextRow, restInStore: result.endsAtGap } : {}),
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
    const unfinished: unknown = await writer.finish?.(reported).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!options.quiet || outcome !== 'completed')
      messages.error([formatSummary(summary).trimEnd(), repairs?.describe(), paddedLine, storeLines(runStore)].filter(Boolean).join('\n'));
    for (const problem of [stateNotKept, unfinished]) {
      if (problem !== undefined)
        messages.error(`propdata: warning: ${messages.redact(problem instanceof Error ? problem.message : JSON.stringify(problem))}`);
    }
    if (fatal instanceof InputError) {
      messages.error(
        `propdata: the output is partial (rows from ${output.nextRow} on are missing); correct the input and run the command again`,
      );
    } else if (!finished && plan.state) {
      const resume = resumeCommand(argv);
      messages.error(`propdata: the output is partial; continue with:\n  ${resume.command}`);
      if (resume.note) messages.error(`  ${resume.note}`);
    } else if (!finished && runStore) {
      messages.error('propdata: the output is partial; run the same command again to complete it: what was bought comes from the store');
    }
    if (options.report) await writeReport(options.report, reported);

    if (fatal !== undefined) {
      if (fatal instanceof PropdataError) return fatal.exitCode;
      throw fatal instanceof Error ? fatal : new Error(JSON.stringify(fatal));
    }
    if (interrupted) return EXIT.interrupted;
    // A workbook that could not be finished is not whole, however well the rows went.
    if (unfinished !== undefined) return unfinished instanceof PropdataError ? unfinished.exitCode : EXIT.fatal;
    return failures > 0 ? EXIT.someItemsFailed : EXIT.ok;
  } finally {
    await runStore?.close(stats.fromStore, result?.savedByStore.usd ?? 0).catch((error: unknown) => {
      messages.error(`propdata: warning: ${(error as Error).message}`);
    });
    await service.close();
  }
}
