#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { main } from '../dist/cli/main.js';
import { SignalStop, STOP_SIGNALS } from '../dist/cli/stop-signal.js';
import { EXIT } from '../dist/cli/exit-codes.js';
import { cannotWrite } from '../dist/output/sink.js';

// A batch keeps about 30 MB alive but makes garbage as fast as the service answers, and V8 lets
// the old generation grow to several times the live set before collecting it: peak memory
// would follow the service's speed, not the batch. Letting it double at most keeps a
// million-row run within 1.2x of a small one for under 10% more CPU; growing by half cost twice
// that for little less memory (BENCHMARKS.md, memory). V8 reads this flag at each collection,
// so setting it now takes effect.
setFlagsFromString('--heap-growing-percent=100');

// A batch's undici parses HTTP with llhttp compiled to WebAssembly. By default V8 recompiles
// llhttp's hot function with its optimising compiler as soon as the first response is parsed:
// over 100 ms on a background thread, which the process's exit then waits for (a one-off waited
// for it before it went over node's own http). Ten times the default budget (1,800,000) lets a
// short batch end first; a long one still reaches the optimised code within its first ten or so
// requests (BENCHMARKS.md, start-up).
setFlagsFromString('--wasm-tiering-budget=18000000');

// A reader that goes away (`propdata endpoints | head -2`, a closed terminal) fails the next
// write with EPIPE or EIO, and an 'error' event nobody listens to is a stack trace and exit 1.
// A batch's output reports its own failure (exit 1: the output is partial); a listing or a help
// text cut short is what its reader asked for, so that ends quietly with the command's own code.
let stdoutFailure;
process.stdout.on('error', (error) => (stdoutFailure ??= error));
process.stderr.on('error', () => undefined);

// The first stop signal asks the running command to stop cleanly; a second Ctrl-C or SIGTERM
// exits at once. A second SIGHUP does not: a hangup is often delivered twice (by the terminal
// and again by the shell to its jobs), and would cut the clean stop short.
const controller = new AbortController();
for (const name of STOP_SIGNALS) {
  process.on(name, () => {
    if (!controller.signal.aborted) controller.abort(new SignalStop(name));
    else if (name !== 'SIGHUP') process.exit(EXIT.interrupted);
  });
}

process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
});
// An output that failed otherwise (a full disk behind a redirect) is no success. Checked at exit:
// a write's failure is reported a tick after the write, which can be after main() returned.
process.once('exit', () => {
  if (process.exitCode !== EXIT.ok || !stdoutFailure || stdoutFailure.code === 'EPIPE') return;
  process.stderr.write(`propdata: ${cannotWrite(stdoutFailure, 'to stdout').message}\n`);
  process.exitCode = EXIT.fatal;
});

// Exit as soon as the output is out. Nothing is left to do once main() returns, but closed HTTP
// sockets keep Node's loop turning for a further 100 to 200 ms: a third of a one-off's wall time.
// Everything written is flushed first (a pipe may still be draining), and one more turn lets a
// failed write report itself to the handler above.
for (const stream of [process.stdout, process.stderr]) {
  if (stream.writableLength > 0 && !stream.destroyed) {
    await new Promise((resolve) => {
      stream.once('drain', resolve);
      stream.once('error', resolve);
      stream.once('close', resolve);
    });
  }
}
await new Promise((resolve) => setImmediate(resolve));
process.exit();
