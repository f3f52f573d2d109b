#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { main } from '../dist/cli/main.js';

// A batch keeps about 30 MB alive but makes garbage as fast as the service answers, and V8 lets
// the old generation grow to several times the live set before collecting it: peak memory
// would follow the service's speed, not the batch. Letting it double at most keeps a
// million-row run within 1.2x of a small one for under 10% more CPU; growing by half cost twice
// that for little less memory (BENCHMARKS.md, memory). V8 reads this flag at each collection,
// so setting it now takes effect.
setFlagsFromString('--heap-growing-percent=100');

// The first Ctrl-C asks the running command to stop cleanly; a second one exits at once.
const controller = new AbortController();
process.once('SIGINT', () => {
  controller.abort();
  process.once('SIGINT', () => process.exit(130));
});
process.once('SIGTERM', () => controller.abort());

process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
});
