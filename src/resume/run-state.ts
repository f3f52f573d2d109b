import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors/index.js';
import { cannotWrite } from '../output/sink.js';
import { syncDirectory } from './sync-to-disk.js';

/** 2: `records` was added (1 had none). */
export const STATE_VERSION = 2;

/**
 * The sidecar that makes a run resumable: `<output>.propdata-run.json`, written before the first
 * record. It pins what the output depends on (the input file and every option that shapes the
 * records) so that --resume refuses to continue a file with different data or settings.
 */
export interface RunState {
  version: typeof STATE_VERSION;
  /** sha256 of the settings that shape the output. */
  settings: string;
  input: InputIdentity;
  /**
   * Records the output held (rows 1..records) when a run last ended or started: a resume that
   * finds fewer refuses, since rows would be missing and sent again.
   */
  records: number;
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

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

function isRunState(value: unknown): value is RunState {
  if (!isObject(value) || !isObject(value.input)) return false;
  const { input } = value;
  return (
    value.version === STATE_VERSION &&
    typeof value.settings === 'string' &&
    typeof input.path === 'string' &&
    isCount(input.size) &&
    typeof input.sample === 'string' &&
    isCount(value.records) &&
    typeof value.complete === 'boolean'
  );
}

/**
 * The state beside `outputPath`, undefined when there is none. One that cannot be read, or
 * another version's, is a UsageError: resuming without knowing what the output holds could
 * leave rows missing or doubled.
 */
export async function readRunState(outputPath: string): Promise<RunState | undefined> {
  const path = statePathFor(outputPath);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (isRunState(value)) return value;
  const version = isObject(value) ? value.version : undefined;
  const problem =
    typeof version === 'number' && version !== STATE_VERSION
      ? `was written by another version of propdata (run state version ${version}; this one reads ${STATE_VERSION})`
      : 'is not a propdata run state, or is damaged';
  throw new UsageError(`cannot resume ${outputPath}: ${path} ${problem}; run without --resume to start over`);
}

/** Written to a temporary name, synced and renamed: neither a crash nor a power loss leaves half a state file. */
export async function writeRunState(outputPath: string, state: RunState): Promise<void> {
  const path = statePathFor(outputPath);
  try {
    const file = await open(`${path}.tmp`, 'w');
    try {
      await file.writeFile(`${JSON.stringify(state, null, 2)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(`${path}.tmp`, path);
  } catch (error) {
    // An unwritable directory (EACCES, a full disk): one clear line, and no temporary file left behind.
    await rm(`${path}.tmp`, { force: true }).catch(() => undefined);
    throw cannotWrite(error, path);
  }
  await syncDirectory(dirname(path));
}

/**
 * Records where a run ended, at the end of every run: the records the output now holds and
 * whether every row is in it. Call it after the output's writer has closed, which puts the
 * records on disk first.
 */
export async function recordProgress(outputPath: string, state: RunState, records: number, complete: boolean): Promise<void> {
  await writeRunState(outputPath, { ...state, records, complete });
}

/** Why `state` cannot be continued with this input and these settings, or undefined when it can. */
export function resumeMismatch(state: RunState, settings: string, input: InputIdentity): string | undefined {
  if (state.input.path !== input.path) return `the earlier run read ${state.input.path}`;
  if (state.input.size !== input.size || state.input.sample !== input.sample) return 'the input file changed since the earlier run';
  if (state.settings !== settings) return 'the endpoint or options that shape the output differ from the earlier run';
  return undefined;
}
