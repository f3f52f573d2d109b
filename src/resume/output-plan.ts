import { existsSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { UsageError } from '../errors/index.js';
import { outputFormatFor, type OutputFormat } from '../output/open-output.js';
import { scanOutputTail } from './output-tail.js';
import { identifyInput, readRunState, resumeMismatch, settingsDigest, statePathFor, type RunState } from './run-state.js';

/** Where a run reads and writes, and whether it continues an earlier output. */
export interface OutputRequest {
  input: string;
  output?: string;
  format?: OutputFormat;
  resume?: boolean;
}

export interface OutputPlan {
  /** Append to the existing output instead of starting it. */
  append: boolean;
  /** The first row to send: rows before it are in the output already. */
  startRow: number;
  /** The run state to keep beside the output (file outputs that can be resumed). */
  state?: RunState;
  alreadyComplete: boolean;
}

/**
 * Where the output starts. A CSV or JSONL file output from a file input is resumable: its run
 * state is kept beside it. With --resume and an existing output, the run continues after the
 * last complete record (a torn one is cut off) if the input and the options are the same.
 */
export async function planOutput(
  options: OutputRequest,
  /** Everything that shapes the records (endpoint, parameters, columns...): resuming needs it unchanged. */
  recordShape: Record<string, unknown>,
): Promise<OutputPlan> {
  const fresh: OutputPlan = { append: false, startRow: 1, alreadyComplete: false };
  const format = outputFormatFor(options.output, options.format);
  const resumable = options.output !== undefined && options.output !== '-' && options.input !== '-' && format !== 'json';
  if (options.resume && !resumable) {
    throw new UsageError('--resume needs --input FILE and --output FILE in CSV or JSONL (a JSON array cannot be appended to)');
  }
  if (!resumable) return fresh;

  const settings = settingsDigest({ ...recordShape, format });
  const input = await identifyInput(options.input);
  const state: RunState = { version: 1, settings, input, complete: false };
  const output = options.output!;
  if (!options.resume || !existsSync(output)) return { ...fresh, state };

  const previous = await readRunState(output);
  if (!previous) {
    throw new UsageError(`cannot resume: ${output} has no run state (${statePathFor(output)}); remove it, or run without --resume to overwrite it`);
  }
  const mismatch = resumeMismatch(previous, settings, input);
  if (mismatch) throw new UsageError(`cannot resume ${output}: ${mismatch}; run without --resume to start over`);
  if (previous.complete) return { ...fresh, state, alreadyComplete: true };

  const tail = await scanOutputTail(output, format as 'csv' | 'jsonl');
  await truncate(output, tail.completeBytes);
  if (!tail.hasHeader) return { ...fresh, state };
  return { append: true, startRow: tail.records + 1, state, alreadyComplete: false };
}
