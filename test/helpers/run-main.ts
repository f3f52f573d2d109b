import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { Clock } from '../../src/throttle/clock.js';

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What spinners and progress bars use of a tty.WriteStream; the cursor moves are no-ops here. */
const TERMINAL = {
  isTTY: true,
  columns: 100,
  cursorTo: (_x: number, _y?: unknown, done?: () => void) => done?.() ?? true,
  moveCursor: (_dx: number, _dy: number, done?: () => void) => done?.() ?? true,
  clearLine: (_dir: number, done?: () => void) => done?.() ?? true,
};

/** Runs the CLI in-process with captured streams and an environment of the test's choosing. */
export async function runMain(
  argv: string[],
  options: {
    env?: Record<string, string | undefined>;
    stdin?: string;
    tty?: boolean;
    columns?: number;
    signal?: AbortSignal;
    /** Io.clock: the time main's waits are measured in (a FakeClock makes backoff instant). */
    clock?: Clock;
    /** Called with what stdout and stderr hold so far, as they grow: to act on a line once it is printed. */
    watch?: (output: Omit<MainResult, 'code'>) => void;
  } = {},
): Promise<MainResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (part: Buffer) => {
    out += part.toString();
    options.watch?.({ stdout: out, stderr: err });
  });
  stderr.on('data', (part: Buffer) => {
    err += part.toString();
    options.watch?.({ stdout: out, stderr: err });
  });
  for (const stream of [stdout, stderr])
    Object.assign(stream, options.tty ? { ...TERMINAL, columns: options.columns ?? TERMINAL.columns } : { isTTY: false });
  const code = await main(argv, {
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdout,
    stderr,
    // The local store goes where the test run says (vitest.config.ts), never into the user's own.
    env: { NO_COLOR: '1', PROPDATA_HOME: process.env.PROPDATA_HOME, ...options.env },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { code, stdout: out, stderr: err };
}
