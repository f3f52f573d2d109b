import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured streams and an environment of the test's choosing. */
export async function runMain(
  argv: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string; tty?: boolean; signal?: AbortSignal } = {},
): Promise<MainResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (part: Buffer) => (out += part.toString()));
  stderr.on('data', (part: Buffer) => (err += part.toString()));
  Object.assign(stdout, { isTTY: options.tty ?? false });
  Object.assign(stderr, { isTTY: options.tty ?? false });
  const code = await main(argv, {
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdout,
    stderr,
    env: { NO_COLOR: '1', ...options.env },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, stdout: out, stderr: err };
}
