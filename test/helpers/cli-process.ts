import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The compiled CLI, as a user runs it (npm test builds dist/ first). */
export const BIN = fileURLToPath(new URL('../../bin/propdata.js', import.meta.url));

export interface CliOptions {
  /** Set over this process's environment; a variable given as undefined is left out. NO_COLOR is set unless given. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The child's stdin, stdout and stderr. Default: no stdin, both outputs collected. */
  stdio?: StdioOptions;
}

export interface CliProcess {
  child: ChildProcess;
  /** What it has written to stdout so far (nothing when its stdout is not a pipe). */
  stdout: () => string;
  /** What it has written to stderr so far. */
  stderr: () => string;
  /** Its end, once its outputs are closed: the exit code, or the signal that killed it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `propdata ...args` in a process of its own: node on bin/propdata.js, its outputs collected as they come. */
export function startCli(args: readonly string[], options: CliOptions = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: options.stdio ?? ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (part: Buffer) => (stdout += part.toString()));
  child.stderr?.on('data', (part: Buffer) => (stderr += part.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** `propdata ...args` run to its end: its exit code and what it printed. */
export async function runCli(
  args: readonly string[],
  options: CliOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, options);
  const { code } = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Resolves once what `cli` has written to stderr matches `pattern`. */
export async function untilStderr(cli: CliProcess, pattern: RegExp): Promise<void> {
  const stderr = cli.child.stderr;
  if (pattern.test(cli.stderr())) return;
  await new Promise<void>((resolve) => {
    const check = () => {
      if (!pattern.test(cli.stderr())) return;
      stderr?.off('data', check);
      resolve();
    };
    stderr?.on('data', check);
  });
}

/**
 * A shell script as a reader runs it (`sh -c`), in `cwd`, to its end: its exit code (128 + n when a
 * signal ended it) and what it printed. NO_COLOR is set unless given, as for the CLI's own runs.
 */
export function runShell(
  script: string,
  options: { cwd: string; env?: Readonly<Record<string, string | undefined>>; shellFlags?: readonly string[] },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', [...(options.shellFlags ?? []), '-c', script], {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (part: Buffer) => (stdout += part.toString()));
    child.stderr.on('data', (part: Buffer) => (stderr += part.toString()));
    child.on('close', (code, signal) => resolve({ code: code ?? 128 + osConstants.signals[signal!], stdout, stderr }));
  });
}
