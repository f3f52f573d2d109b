import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { JobIdentity } from '../engine/job-names.js';
import { resolvedPath } from '../output/output-lock.js';
import { settingsDigest } from '../resume/run-state.js';
import type { BatchOptions } from './commands/query-options.js';

/**
 * The names of the output a job writes, as the store knows the job by them: the file its path
 * resolves to (every symlink followed, so a link to the output, or a path through a linked folder,
 * is the same job), then, once there is a file, its device and inode (so a hard link to it is the
 * same job too). The path alone would not survive a hard link; the inode alone would not survive
 * the output being made anew (a first run, a merge of retried records renames a new file over it),
 * nor a run on another machine: either name finds the job, and a run names it by both.
 */
async function outputNames(output: string | undefined): Promise<unknown[]> {
  if (output === undefined || output === '-') return ['-'];
  const path = await resolvedPath(output).catch(() => resolve(output));
  const file = await stat(output, { bigint: true }).catch(() => undefined);
  return file === undefined || file.ino === 0n ? [path] : [path, `file ${file.dev}:${file.ino}`];
}

/**
 * The job a run belongs to: the same command (endpoint, options that shape the records) on the same
 * input and output file, whatever path reaches that file. Until it writes every row with a final
 * answer, each run of it continues it (PROTOCOL.md, rule 1).
 */
export function jobOf(options: BatchOptions, recordShape: object): JobIdentity {
  const where = (path: string | undefined) => (path === undefined || path === '-' ? '-' : resolve(path));
  const input = where(options.input);
  const format = options.format ?? null;
  return {
    command: settingsDigest({ input, shape: recordShape, format }),
    names: async () => (await outputNames(options.output)).map((output) => settingsDigest({ input, output, shape: recordShape, format })),
  };
}
