#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

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
