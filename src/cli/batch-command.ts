import { JOB_DEFAULTS } from '../engine/job-defaults.js';
import { connect, type Service } from '../engine/connect.js';
import { runJob, type JobEvents, type JobOutcome, type JobStore } from '../engine/run-job.js';
import type { JobIdentity } from '../engine/job-names.js';
import { storeBackNote, storeLostNote } from '../engine/store-outage-notes.js';
import type { Io, Messages } from './io.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import { fixedParams } from './query-params.js';
import type { BatchOptions } from './commands/query-options.js';
import { InputError, PropdataError } from '../errors/index.js';
import { EXIT, exitCodeFor, exitCodeOf } from './exit-codes.js';
import type { IdentifierRepairs } from '../input/xlsx-identifiers.js';
import { openOutput, type OutputWriter } from '../output/open-output.js';
import { SYSTEM_CLOCK } from '../throttle/clock.js';
import { planOutput, type OutputPlan } from '../resume/output-plan.js';
import { startProgress } from './progress.js';
import type { RunStats } from '../pipeline/run-stats.js';
import { recordProgress, writeRunState } from '../resume/run-state.js';
import { jobOf } from './batch-job.js';
import { accountId, accountOf } from '../store/account.js';
import { openResumeWriter } from '../resume/resume-writer.js';
import { checkRunPaths } from '../output/check-paths.js';
import { markReportRunning, writeReport } from '../output/report-file.js';
import { lockOutput, type OutputLock } from '../output/output-lock.js';
import { commandLine, resumeCommand } from './resume-command.js';
import { journalDirFor } from '../store/store-path.js';
import { resolveRunDefaults, runStorePath, type RunDefaults } from './run-defaults.js';
import { formatQuietSummary, formatSummary, type RunSummary } from '../pipeline/summary.js';
import { prepareInput, recordShapeOf, type Prepared } from './batch-input.js';
import { openStoreToEstimate, runEstimate } from './estimate-run.js';

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
    return await runLocked(target, options, { io, messages, argv, outputFailure, lock }, prepared, params);
  } finally {
    await lock?.release();
  }
}

const isFileOutput = (path: string | undefined): path is string => path !== undefined && path !== '-';

/** What the store met that the user should know once: damaged answers bought again, a damaged file. */
function storeLines(job: JobOutcome): string | undefined {
  if (!job.storeProblems) return undefined;
  const { damaged, notes } = job.storeProblems;
  const lines = [
    ...(damaged > 0 ? [`  ${damaged} kept answers could not be read (damaged): they were bought again and replaced`] : []),
    ...notes.map((note) => `  store: ${note}`),
  ];
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/**
 * What the store gives a run that writes its output afresh, said with it: what earlier runs of the
 * job bought, when the store holds it running (under any of its names), or what --max-age lets it reuse.
 */
async function fromStoreNote(
  plan: OutputPlan,
  target: QueryTarget,
  options: BatchOptions,
  env: Io['env'],
  { storePath, runDefaults, job }: { storePath: string | undefined; runDefaults: RunDefaults; job: JobIdentity },
): Promise<string> {
  if (storePath === undefined || (plan.afresh === undefined && plan.overwritesPartial === undefined)) return '';
  const kept = await openStoreToEstimate(storePath, target, options, env, runDefaults.maxAgeMs, job).catch(() => undefined);
  await kept?.close();
  if (kept?.since !== undefined) return ' (what earlier runs of this job bought comes from the store)';
  return runDefaults.maxAgeMs === undefined ? '' : ' (answers younger than --max-age come from the store)';
}

/** What the plan of the output means, said before the run: returns false when there is nothing to do (a complete output, no age limit). */
function announcePlan(
  plan: OutputPlan,
  options: BatchOptions,
  messages: Messages,
  runDefaults: RunDefaults,
  { storePath, fromStore }: { storePath: string | undefined; fromStore: string },
): boolean {
  // A complete output holds the answers it can: only an age limit makes rewriting it worth anything.
  if (plan.complete && runDefaults.maxAgeMs === undefined) {
    messages.info(`propdata: nothing to resume: ${options.output} is complete (with --max-age, --resume refreshes it from the store)`);
    return false;
  }
  if (plan.afresh) messages.info(`propdata: --resume: ${plan.afresh}; writing ${options.output ?? 'the output'} afresh${fromStore}`);
  const held = plan.overwritesPartial?.records === undefined ? '' : ` (${plan.overwritesPartial.records} records)`;
  if (plan.overwritesPartial && storePath === undefined) {
    messages.error(
      `propdata: warning: starting ${options.output} over: an earlier run left it partial${held}; ` +
        'to continue it instead, stop now (Ctrl-C) and run the same command with --resume',
    );
  } else if (plan.overwritesPartial) {
    messages.info(
      `propdata: starting ${options.output} over: an earlier run left it partial${held}${fromStore}; --resume appends to it instead`,
    );
  }
  return true;
}

/** Opens the run's output as its plan says (afresh, appended, or a resumable file with its run state), once the run may start. */
function outputOpener(
  target: QueryTarget,
  options: BatchOptions,
  { io, messages, lock }: { io: Io; messages: Messages; lock: OutputLock | undefined },
  { plan, inputColumns, metaColumn }: { plan: OutputPlan; inputColumns: readonly string[]; metaColumn: string | undefined },
): () => Promise<OutputWriter> {
  return async () => {
    if (plan.state) await writeRunState(options.output!, plan.state);
    const settings = {
      path: options.output,
      format: options.format,
      stdout: io.stdout,
      inputColumns,
      level: target.level,
      sections: sectionKeys(target),
      withMeta: metaColumn !== undefined,
      append: plan.append,
      excel: Boolean(options.excel),
      sheets: options.sheets,
      shortNames: Boolean(options.shortNames),
    };
    const opened = plan.state
      ? await openResumeWriter({ ...settings, path: options.output!, startRow: plan.startRow, retryRows: plan.retryRows })
      : await openOutput(settings);
    // The file is there now (made, or replaced by a merge of retried records): another name of it is refused from here on.
    await lock?.holdIdentity().catch(async (error: unknown) => {
      await opened.close().catch(() => undefined);
      throw error;
    });
    if (plan.retryRows.length > 0)
      messages.info(
        `propdata: sending ${plan.retryRows.length} rows again whose records are error or not_sent (the first: row ${plan.retryRows[0]})`,
      );
    return opened;
  };
}

/** The store a batch keeps its answers in: the account's, under the job this command on this input and output is. */
function batchStore(
  storePath: string | undefined,
  options: BatchOptions,
  { io, argv, service }: { io: Io; argv: readonly string[]; service: Service },
  { job, maxAgeMs }: { job: JobIdentity; maxAgeMs: number | undefined },
): JobStore | undefined {
  if (storePath === undefined) return undefined;
  return {
    path: storePath,
    account: accountOf(service.connection, Boolean(options.sandbox)),
    ...(options.sandbox ? { pacingAccount: accountId(service.connection.baseUrl, service.connection.key) } : {}),
    job,
    maxAgeMs,
    runLabel: commandLine(argv),
    journal: journalDirFor(storePath, io.env),
    outageWaitMs: options.storeWait ?? JOB_DEFAULTS.storeWaitMs,
  };
}

/** What the terminal shows of a running batch: its progress, retries under --verbose, and the store going and coming back. */
function batchEvents(messages: Messages, started: JobEvents['started']): JobEvents {
  return {
    ...(started ? { started } : {}),
    retry: (reason) => messages.debug(`retrying a batch after: ${reason}`),
    // Said even with --quiet: an unattended run's log should show why it paused.
    storeLost: (reason, waitMs) => messages.error(`propdata: ${storeLostNote(reason, waitMs, '--store-wait')}`),
    storeBack: (afterMs, journaled) => messages.error(`propdata: ${storeBackNote(afterMs, journaled)}`),
  };
}

/** The batch proper, once its output is ours alone: the output planned, the engine's run, then what it means for the terminal. */
async function runLocked(
  target: QueryTarget,
  options: BatchOptions,
  context: { io: Io; messages: Messages; argv: readonly string[]; outputFailure: AbortController; lock: OutputLock | undefined },
  { rows, prepare, inputColumns, metaColumn, seekable, repairs, padded }: Prepared,
  params: Record<string, string>,
): Promise<number> {
  const { io, messages, argv } = context;
  const recordShape = recordShapeOf(target, options, params, inputColumns, metaColumn);
  const runDefaults = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const storePath = runStorePath(options.store, io.env, runDefaults);
  const job = jobOf(options, recordShape);
  const plan = await planOutput({ ...options, inputSeekable: seekable }, recordShape);
  const fromStore = await fromStoreNote(plan, target, options, io.env, { storePath, runDefaults, job });
  if (!announcePlan(plan, options, messages, runDefaults, { storePath, fromStore })) return EXIT.ok;
  const unmarked = options.report ? await markReportRunning(options.report, new Date((io.clock ?? SYSTEM_CLOCK).now())) : undefined;
  if (unmarked) messages.error(`propdata: warning: ${messages.redact(unmarked.message)}`);
  const service = await connect(options, { env: io.env, log: messages }, options.concurrency);
  const openWriter = outputOpener(target, options, context, { plan, inputColumns, metaColumn });
  let writer: OutputWriter | undefined;
  let progress: { stop(): void } | undefined;
  let stats: RunStats | undefined;
  // A stop is acknowledged at once: nothing new is sent, and the requests in flight are named.
  const acknowledgeStop = () => {
    progress?.stop();
    messages.error(`propdata: stopping: finishing ${stats?.requestsInFlight ?? 0} requests in flight; Ctrl-C again to abort`);
  };
  io.signal?.addEventListener('abort', acknowledgeStop, { once: true });
  let outcome: JobOutcome;
  try {
    const store = batchStore(storePath, options, { io, argv, service }, { job, maxAgeMs: runDefaults.maxAgeMs });
    outcome = await runJob({
      target,
      rows,
      prepare,
      service,
      openWriter: async () => (writer = await openWriter()),
      startRow: plan.startRow,
      retryRows: plan.retryRows,
      ...(plan.earlier ? { earlier: plan.earlier } : {}),
      ...(store ? { store } : {}),
      caps: { maxComponents: options.maxComponents, maxCost: options.maxCost, maxCostMonth: runDefaults.maxCostMonth },
      ...(options.price ? { prices: options.price } : {}),
      pace: {
        batchSize: options.batchSize,
        concurrency: options.concurrency,
        ratePerMinute: options.rate,
        dedupe: options.dedupe,
        maxRetries: options.maxRetries,
        maxWaitMs: options.maxWait ?? JOB_DEFAULTS.maxWaitMs,
      },
      clock: io.clock ?? SYSTEM_CLOCK,
      ...(io.signal ? { signal: io.signal } : {}),
      outputFailure: context.outputFailure.signal,
      // A file that fails (a full disk) with a store beside it: requests in flight finish and their
      // answers are kept for the next run. Otherwise (no store, or stdout's reader gone, as with
      // `| head`) an answer nobody can take is not waited for.
      finishInFlightOnOutputFailure: isFileOutput(options.output),
      events: batchEvents(messages, async (run) => {
        stats = run.stats;
        progress = await startProgress(io, run.stats, run.limiter, Boolean(options.quiet));
      }),
    });
  } finally {
    io.signal?.removeEventListener('abort', acknowledgeStop);
    progress?.stop();
    await service.close();
  }
  return reportJob(outcome, { options, messages, argv, writer: writer!, plan, repairs, padded });
}

interface ReportContext {
  options: BatchOptions;
  messages: Messages;
  argv: readonly string[];
  writer: OutputWriter;
  plan: OutputPlan;
  repairs: IdentifierRepairs | undefined;
  padded: Prepared['padded'];
}

/** What a job's outcome means for the terminal: the run state, the summary (stderr, the workbook, --report), how to continue, the exit code. */
async function reportJob(job: JobOutcome, { options, messages, argv, writer, plan, repairs, padded }: ReportContext): Promise<number> {
  const { fatal, finished } = job;
  // Stdout's reader went away (`| head`): nobody reads a summary there; one line says why it ended.
  if (job.outputFailed && fatal instanceof Error && !isFileOutput(options.output)) throw fatal;
  // A run state that cannot be updated (a full disk) leaves the last one: --resume checks the file against it.
  const stateNotKept: unknown = plan.state
    ? await recordProgress(options.output!, plan.state, Math.max(plan.startRow, job.nextRow) - 1, finished).then(
        () => undefined,
        (error: unknown) => error,
      )
    : undefined;
  const summary: RunSummary = {
    ...job.summary,
    ...(isFileOutput(options.output) ? { output: options.output } : {}),
    ...(fatal !== undefined ? { stoppedBecause: messages.redact(fatal instanceof Error ? fatal.message : JSON.stringify(fatal)) } : {}),
  };
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
  if (!options.quiet || summary.outcome !== 'completed')
    messages.error([formatSummary(summary).trimEnd(), repairs?.describe(), paddedLine, storeLines(job)].filter(Boolean).join('\n'));
  else messages.error(formatQuietSummary(summary).trimEnd());
  for (const problem of [stateNotKept, unfinished, job.storeCloseFailure]) {
    if (problem !== undefined)
      messages.error(`propdata: warning: ${messages.redact(problem instanceof Error ? problem.message : JSON.stringify(problem))}`);
  }
  if (fatal instanceof InputError) {
    messages.error(
      `propdata: the output is partial (rows from ${job.nextRow} on are missing); correct the input and run the command again`,
    );
  } else if (!finished && plan.state) {
    const resume = resumeCommand(argv);
    messages.error(`propdata: the output is partial; continue with:\n  ${resume.command}`);
    if (resume.note) messages.error(`  ${resume.note}`);
  } else if (!finished && job.storeProblems) {
    messages.error('propdata: the output is partial; run the same command again to complete it: what was bought comes from the store');
  }
  if (options.report) await writeReport(options.report, reported);
  const code = exitCodeOf(job);
  // A workbook that could not be finished is not whole, however well the rows went.
  if (code === EXIT.ok || code === EXIT.someItemsFailed) {
    if (unfinished !== undefined) return unfinished instanceof PropdataError ? exitCodeFor(unfinished) : EXIT.fatal;
  }
  return code;
}
