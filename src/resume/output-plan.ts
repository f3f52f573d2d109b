import { existsSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { UsageError } from '../errors/index.js';
import { outputFormatFor, type OutputFormat } from '../output/open-output.js';
import { discardRetries, mergeRetries } from './merge-retries.js';
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
  /** Rows before startRow whose record is `error`, ascending: sent again and rewritten in place. */
  retryRows: readonly number[];
  /** The run state to keep beside the output (file outputs that can be resumed). */
  state?: RunState;
  alreadyComplete: boolean;
  /** Without --resume: the output an earlier run left partial (its records), which this run starts over. */
  overwritesPartial?: { records: number };
}

/** Everything that shapes the records (endpoint, parameters, columns...): resuming needs it unchanged. */
export interface RecordShape {
  /** The input's columns: a CSV output's `_row` column comes right after them. */
  columns: readonly string[];
  [setting: string]: unknown;
}

const START_OVER = 'restore the file or run without --resume to start over';

/** Refuses an output that holds fewer records than a run left in it: rows would be missing, or sent again. */
function checkRecordCount(output: string, scan: OutputScan, previous: RunState): void {
  if (scan.records < previous.records) {
    throw new UsageError(
      `${output} holds ${scan.records} records but the earlier run wrote ${previous.records}: records were removed; ${START_OVER}`,
    );
  }
}

/**
 * Where the output starts. A CSV or JSONL file output from a file input is resumable: its run
 * state is kept beside it. With --resume and an existing output, the run checks the whole file
 * (every record where it should be, nothing missing), cuts off a torn last record, and continues
 * after the last record, sending the rows whose record is `error` again, if the input and the
 * options are the same. Retried records a killed run left in the journal are merged first.
 */
export async function planOutput(options: OutputRequest, recordShape: RecordShape): Promise<OutputPlan> {
  const fresh: OutputPlan = { append: false, startRow: 1, retryRows: [], alreadyComplete: false };
  const format = outputFormatFor(options.output, options.format);
  const resumable =
    options.output !== undefined && options.output !== '-' && options.inputSeekable && format !== 'json' && format !== 'xlsx';
  if (options.resume && !resumable) {
    throw new UsageError(
      '--resume needs --input FILE (a regular file, not a pipe) and --output FILE in CSV or JSONL (a JSON array or an xlsx workbook cannot be appended to)',
    );
  }
  if (!resumable) return fresh;

  const settings = settingsDigest({ ...recordShape, format });
  const input = await identifyInput(options.input);
  const state: RunState = { version: STATE_VERSION, settings, input, records: 0, complete: false };
  const output = options.output!;
  if (!options.resume) {
    const earlier = existsSync(output) ? await readRunState(output).catch(() => undefined) : undefined;
    await discardRetries(output);
    return { ...fresh, state, ...(earlier && !earlier.complete ? { overwritesPartial: { records: earlier.records } } : {}) };
  }

  const previous = await readRunState(output);
  if (!existsSync(output)) {
    if (previous && previous.records > 0) {
      throw new UsageError(`${output} is missing but the earlier run wrote ${previous.records} records to it; ${START_OVER}`);
    }
    await discardRetries(output);
    return { ...fresh, state };
  }
  if (!previous) {
    throw new UsageError(
      `cannot resume: ${output} has no run state (${statePathFor(output)}); remove it, or run without --resume to overwrite it`,
    );
  }
  const mismatch = resumeMismatch(previous, settings, input);
  if (mismatch) throw new UsageError(`cannot resume ${output}: ${mismatch}; run without --resume to start over`);

  await mergeRetries(output, format, recordShape.columns);
  const scan = await scanOutput(output, format, recordShape.columns);
  checkRecordCount(output, scan, previous);
  if (previous.complete && scan.errorRows.length === 0) return { ...fresh, state, alreadyComplete: true };

  await truncate(output, scan.completeBytes);
  if (!scan.hasHeader) return { ...fresh, state };
  return {
    append: true,
    startRow: scan.records + 1,
    retryRows: scan.errorRows,
    state: { ...state, records: scan.records },
    alreadyComplete: false,
  };
}
