import { existsSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { UsageError } from '../errors/index.js';
import { outputFormatFor, type OutputFormat } from '../output/open-output.js';
import { discardRetries, mergeRetries } from './merge-retries.js';
import type { Status } from '../model/status.js';
import type { AppendableFormat } from '../output/record-text.js';
import { scanOutput, type OutputScan } from './output-scan.js';
import { identifyInput, readRunState, resumeMismatch, settingsDigest, STATE_VERSION, statePathFor, type RunState } from './run-state.js';

/** Where a run reads and writes, and whether it continues an earlier output. */
export interface OutputRequest {
  input: string;
  /** A regular file: a pipe is read once, so it has no identity to check a resume against. */
  inputSeekable: boolean;
  output?: string;
  format?: OutputFormat;
  resume?: boolean;
}

export interface OutputPlan {
  /** Append to the existing output instead of starting it. */
  append: boolean;
  /** Rows from this one on are sent and appended: rows before it are in the output already. */
  startRow: number;
  /** Rows before startRow whose record is `error` or `not_sent`, ascending: sent again and rewritten in place. */
  retryRows: readonly number[];
  /** The records an appended output keeps from earlier runs (those not sent again), by status: the file's totals start there. */
  earlier?: Record<Status, number>;
  /** The run state to keep beside the output (file outputs that can be resumed). */
  state?: RunState;
  /** Without --resume: the output an earlier run left partial (the whole records it holds, when it can be read), which this run starts over. */
  overwritesPartial?: { records?: number };
  /**
   * With --resume: why the output cannot be continued (a changed input or options, a complete or
   * edited file, an output that cannot be appended to); the run writes it afresh instead.
   */
  afresh?: string;
  /** With --resume: the output is complete and holds no row to send again (`afresh` says so too). */
  complete?: boolean;
}

/** Everything that shapes the records (endpoint, parameters, columns...): resuming needs it unchanged. */
export interface RecordShape {
  /** The input's columns: a CSV output's `_row` column comes right after them. */
  columns: readonly string[];
  [setting: string]: unknown;
}

/** Why an output holding fewer records than a run left in it cannot be continued (rows would be missing), if it holds fewer. */
function missingRecords(output: string, scan: OutputScan, previous: RunState): string | undefined {
  return scan.records < previous.records
    ? `${output} holds ${scan.records} records but the earlier run wrote ${previous.records}: records were removed`
    : undefined;
}

/**
 * The whole records a file holds, counted in the file: a killed run's state still says what the
 * output held when that run started. Undefined when the file cannot be read record by record.
 */
async function recordsIn(output: string, format: AppendableFormat, shape: RecordShape): Promise<{ records?: number }> {
  try {
    return { records: (await scanOutput(output, format, shape.columns)).records };
  } catch (error) {
    if (error instanceof UsageError) return {};
    throw error;
  }
}

/** The output as it stands, checked record by record, or why it cannot be continued. */
async function scanToContinue(output: string, format: AppendableFormat, shape: RecordShape): Promise<OutputScan | string> {
  try {
    await mergeRetries(output, format, shape.columns);
    return await scanOutput(output, format, shape.columns);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
}

/**
 * Where the output starts. A CSV or JSONL file output from a file input is resumable: its run
 * state is kept beside it. With --resume and an existing output, the run checks the whole file
 * (every record where it should be, nothing missing), cuts off a torn last record, and continues
 * after the last record, sending the rows whose record is `error` or `not_sent` again, if the
 * input and the options are the same. Retried records a killed run left in the journal are merged
 * first. --resume never fails a job: an output it cannot continue (the input or the options
 * changed, the file is complete or was edited, it cannot be appended to) is written afresh, and
 * `afresh` says why.
 */
export async function planOutput(options: OutputRequest, recordShape: RecordShape): Promise<OutputPlan> {
  const fresh: OutputPlan = { append: false, startRow: 1, retryRows: [] };
  const format = outputFormatFor(options.output, options.format);
  const resumable =
    options.output !== undefined && options.output !== '-' && options.inputSeekable && format !== 'json' && format !== 'xlsx';
  if (!resumable) {
    return options.resume
      ? {
          ...fresh,
          afresh: 'only a CSV or JSONL --output from a regular --input file can be appended to (not a pipe, a JSON array or a workbook)',
        }
      : fresh;
  }

  const settings = settingsDigest({ ...recordShape, format });
  const input = await identifyInput(options.input);
  const state: RunState = { version: STATE_VERSION, settings, input, records: 0, complete: false };
  const output = options.output!;
  const afresh = async (why: string): Promise<OutputPlan> => {
    await discardRetries(output);
    return { ...fresh, state, afresh: why };
  };
  if (!options.resume) {
    const earlier = existsSync(output) ? await readRunState(output).catch(() => undefined) : undefined;
    const partial = earlier && !earlier.complete ? { overwritesPartial: await recordsIn(output, format, recordShape) } : {};
    await discardRetries(output);
    return { ...fresh, state, ...partial };
  }

  const previous = await readRunState(output).catch((error: unknown) => {
    if (error instanceof UsageError) return error.message;
    throw error;
  });
  if (typeof previous === 'string') return afresh(previous);
  if (!existsSync(output)) {
    if (previous && previous.records > 0) return afresh(`${output} is missing but the earlier run wrote ${previous.records} records to it`);
    await discardRetries(output);
    return { ...fresh, state };
  }
  if (!previous) return afresh(`${output} has no run state (${statePathFor(output)})`);
  const mismatch = resumeMismatch(previous, settings, input);
  if (mismatch) return afresh(mismatch);

  const scan = await scanToContinue(output, format, recordShape);
  if (typeof scan === 'string') return afresh(scan);
  const missing = missingRecords(output, scan, previous);
  if (missing) return afresh(missing);
  if (previous.complete && scan.errorRows.length === 0) return { ...(await afresh(`${output} is complete`)), complete: true };

  await truncate(output, scan.completeBytes);
  if (!scan.hasHeader) return { ...fresh, state };
  const earlier = { ...scan.byStatus };
  earlier.error = 0;
  earlier.not_sent = 0;
  return {
    append: true,
    startRow: scan.records + 1,
    retryRows: scan.errorRows,
    earlier,
    state: { ...state, records: scan.records },
  };
}
