import { createHash } from 'node:crypto';
import { open, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/**
 * The sidecar that makes a run resumable: `<output>.propdata-run.json`, written before the first
 * record. It pins what the output depends on (the input file and every option that shapes the
 * records) so that --resume refuses to continue a file with different data or settings.
 */
export interface RunState {
  version: 1;
  /** sha256 of the settings that shape the output. */
  settings: string;
  input: InputIdentity;
  complete: boolean;
}

export interface InputIdentity {
  path: string;
  size: number;
  /** sha256 of the first and last 64 KiB: cheap, and catches edits and appends. */
  sample: string;
}

const SAMPLE_BYTES = 64 * 1024;

export const statePathFor = (outputPath: string) => `${outputPath}.propdata-run.json`;

export function settingsDigest(settings: unknown): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex');
}

export async function identifyInput(path: string): Promise<InputIdentity> {
  const { size } = await stat(path);
  const file = await open(path, 'r');
  try {
    const hash = createHash('sha256');
    const head = Buffer.alloc(Math.min(size, SAMPLE_BYTES));
    await file.read(head, 0, head.length, 0);
    hash.update(head);
    const tail = Buffer.alloc(Math.min(size, SAMPLE_BYTES));
    await file.read(tail, 0, tail.length, Math.max(0, size - tail.length));
    hash.update(tail);
    return { path: resolve(path), size, sample: hash.digest('hex') };
  } finally {
    await file.close();
  }
}

export async function readRunState(outputPath: string): Promise<RunState | undefined> {
  try {
    return JSON.parse(await readFile(statePathFor(outputPath), 'utf8')) as RunState;
  } catch {
    return undefined;
  }
}

/** Written to a temporary name and renamed, so a crash never leaves half a state file. */
export async function writeRunState(outputPath: string, state: RunState): Promise<void> {
  const path = statePathFor(outputPath);
  await writeFile(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}

/** Why `state` cannot be continued with this input and these settings, or undefined when it can. */
export function resumeMismatch(state: RunState, settings: string, input: InputIdentity): string | undefined {
  if (state.version !== 1) return 'the run state was written by another version of propdata';
  if (state.input.path !== input.path) return `the earlier run read ${state.input.path}`;
  if (state.input.size !== input.size || state.input.sample !== input.sample) return 'the input file changed since the earlier run';
  if (state.settings !== settings) return 'the endpoint or options that shape the output differ from the earlier run';
  return undefined;
}
