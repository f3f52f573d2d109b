import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors/index.js';

/** The files a batch reads and writes: `-` or undefined is a standard stream. */
export interface RunPaths {
  input: string;
  output?: string;
  report?: string;
}

const isFile = (path: string | undefined): path is string => path !== undefined && path !== '-';

/** The file's identity (device and inode), following links; undefined when it does not exist. */
function identity(path: string): string | undefined {
  try {
    const stats = statSync(path);
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

/** Why `path` cannot be written, found before anything is paid for; undefined when it can. */
function unwritable(path: string): string | undefined {
  try {
    if (statSync(path).isDirectory()) return 'it is a directory';
    return undefined;
  } catch {
    // It does not exist yet: its directory must.
  }
  try {
    if (!statSync(dirname(resolve(path))).isDirectory()) return `${dirname(path)} is not a directory`;
  } catch {
    return `its directory ${dirname(path)} does not exist`;
  }
  return undefined;
}

/**
 * Checks every path a run will write before the first request: an output that is the input (by
 * device and inode, so a symlink or another spelling counts) would destroy the input as it is
 * read; a report that is the output or the input would replace paid records; a missing directory
 * would fail only after a paid run. Usage errors (exit 2), with what to do.
 */
export function checkRunPaths(paths: RunPaths): void {
  const input = isFile(paths.input) ? identity(paths.input) : undefined;
  for (const [flag, path] of [
    ['--output', paths.output],
    ['--report', paths.report],
  ] as const) {
    if (!isFile(path)) continue;
    const reason = unwritable(path);
    if (reason) throw new UsageError(`cannot write ${flag} ${path}: ${reason}`, 'E_OUTPUT_PATH');
    const written = identity(path);
    if (written !== undefined && written === input) {
      throw new UsageError(
        `${flag} ${path} is the input file: writing it would destroy the input; choose another file`,
        'E_OUTPUT_IS_INPUT',
      );
    }
  }
  if (isFile(paths.report) && isFile(paths.output)) {
    const report = identity(paths.report) ?? resolve(paths.report);
    const output = identity(paths.output) ?? resolve(paths.output);
    if (report === output)
      throw new UsageError(
        `--report ${paths.report} is the output file: the report would replace the records; choose another file`,
        'E_OUTPUT_IS_INPUT',
      );
  }
}
