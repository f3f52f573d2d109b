import { BENCHMARKS_MD } from './paths.mjs';
import { describeMachine, timestamp } from './machine.mjs';
import { consoleLines, figureBlock, updateBlocks } from './markdown.mjs';
import { gateway } from './figures/gateway.mjs';
import { libraryMemory } from './figures/library-memory.mjs';
import { memory } from './figures/memory.mjs';
import { oneItem } from './figures/one-item.mjs';
import { overhead } from './figures/overhead.mjs';
import { paidNotWritten } from './figures/paid-not-written.mjs';
import { pacing } from './figures/pacing.mjs';
import { parallel } from './figures/parallel.mjs';
import { postgres } from './figures/postgres.mjs';
import { postgresSpeed } from './figures/postgres-speed.mjs';
import { starts } from './figures/starts.mjs';
import { startup } from './figures/startup.mjs';
import { store } from './figures/store.mjs';
import { storeOps } from './figures/store-ops.mjs';
import { storeSpeed } from './figures/store-speed.mjs';
import { sweep } from './figures/sweep.mjs';

// `node test/bench/run.mjs [figure...]`: the figures named (all by default), each measured as a
// ratio within this run, printed and written into its block of BENCHMARKS.md. Run against
// dist/: `npm run bench` builds first.
const FIGURES = {
  startup,
  overhead,
  pacing,
  parallel,
  starts,
  postgres,
  sweep,
  memory,
  libraryMemory,
  oneItem,
  paidNotWritten,
  store,
  storeOps,
  storeSpeed,
  postgresSpeed,
  gateway,
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in FIGURES));
if (unknown.length > 0) {
  console.error(`unknown figure: ${unknown.join(', ')}; choose from ${Object.keys(FIGURES).join(', ')}`);
  process.exit(2);
}
const machine = describeMachine();
console.log(`propdata benchmarks on ${machine}`);
for (const name of wanted.length > 0 ? wanted : Object.keys(FIGURES)) {
  const started = performance.now();
  const result = await FIGURES[name]();
  for (const line of consoleLines(name, result)) console.log(line);
  console.log(`${name}: measured in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  updateBlocks(BENCHMARKS_MD, { [name]: figureBlock(name, result, timestamp(), machine) });
}
