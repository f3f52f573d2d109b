import { fileURLToPath } from 'node:url';
import { median, runNode } from '../child.mjs';
import { startSandbox } from '../sandbox.mjs';

// As the CLI's memory figure: enough items to fill the pipeline's window and the deduplication cache (5,000).
const SMALL = 10_000;
const LARGE = 1_000_000;
/** Where a long run has settled: between it and LARGE, growth would be the batch's. */
const MIDDLE = 100_000;
const SMALL_ROUNDS = 3;
// The CLI's memory figure's targets (memory.mjs): a library batch holds no more than a CLI batch.
const MAX_RATIO = 1.3;
const MAX_PEAK_MB = 250;
const MB = 1_000_000;
/** What bin/propdata.js sets for the CLI; a library leaves its caller's V8 flags alone. */
const CLI_HEAP_FLAG = '--heap-growing-percent=100';
const SCRIPT = fileURLToPath(new URL('../library-batch.mjs', import.meta.url));
/** The same batch in a worker thread with a capped heap: what would meet the target, measured beside it (no target). */
const WORKER_SCRIPT = fileURLToPath(new URL('../library-batch-worker.mjs', import.meta.url));

const count = (value) => value.toLocaleString('en-US');

/** One library batch of `items` from an async generator in a process of its own: its peak RSS and wall time (and live set, under --expose-gc). */
async function peakRss(items, sandbox, nodeFlags = [], script = SCRIPT) {
  const run = await runNode([...nodeFlags, script, sandbox.url, String(items)], { measureUsage: true });
  const { records, inOrder, liveBytes } = JSON.parse(run.stdout.trim().split('\n').pop());
  if (records !== items || !inOrder) throw new Error(`expected ${items} records in input order, got ${records} (in order: ${inOrder})`);
  return { ...run, liveBytes };
}

/** The median of SMALL_ROUNDS small runs' peak RSS. */
async function smallPeak(sandbox, nodeFlags = [], script = SCRIPT) {
  const peaks = [];
  for (let round = 0; round < SMALL_ROUNDS; round++) peaks.push((await peakRss(SMALL, sandbox, nodeFlags, script)).maxRss);
  return median(peaks);
}

/**
 * Library memory (issue 28): `import { createClient } from 'propdata'` (dist/library/), a batch of
 * property/value for 1,000,000 items from an async generator, `store: false`, the records counted
 * in a `for await` loop: its process's peak RSS divided by the same for 1,000 items. Each run is a
 * process of its own (child.mjs), against the sandbox in another with no rate limit, as the CLI's
 * memory figure runs, and with its targets. The runs are plain node, as a user's script is: the
 * CLI's V8 heap flag is measured beside them, no target, and so is a 100,000-item run (from there
 * to 1,000,000, growth would be the batch's own rather than V8's heap settling), and the live set
 * after forced collections (--expose-gc), which is what the batch holds whatever heap V8 keeps.
 * Beside them, the same batch in a worker thread whose heap is capped (library-batch-worker.mjs, a
 * prototype): what would meet the target in a plain node, and its CPU time against the plain run's.
 */
export async function libraryMemory() {
  const sandbox = await startSandbox(['--rate-limit', 'off']);
  try {
    const small = await smallPeak(sandbox);
    const middle = await peakRss(MIDDLE, sandbox);
    const large = await peakRss(LARGE, sandbox);
    const flaggedSmall = await smallPeak(sandbox, [CLI_HEAP_FLAG]);
    const flaggedLarge = await peakRss(LARGE, sandbox, [CLI_HEAP_FLAG]);
    // What the batch itself holds, whatever heap V8 keeps around it.
    const liveSmall = (await peakRss(SMALL, sandbox, ['--expose-gc'])).liveBytes;
    const liveLarge = (await peakRss(LARGE, sandbox, ['--expose-gc'])).liveBytes;
    const workerSmall = await smallPeak(sandbox, [], WORKER_SCRIPT);
    const workerLarge = await peakRss(LARGE, sandbox, [], WORKER_SCRIPT);
    const liveRatio = liveLarge / liveSmall;
    const ratio = large.maxRss / small;
    const largeMb = large.maxRss / MB;
    const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
    return {
      measurements: [
        [`peak RSS, ${count(SMALL)} items (median of ${SMALL_ROUNDS})`, mb(small)],
        [`peak RSS, ${count(MIDDLE)} items`, mb(middle.maxRss)],
        [`peak RSS, ${count(LARGE)} items`, mb(large.maxRss)],
        [
          `${count(LARGE)} items: wall time, items/s`,
          `${(large.wallMs / 1000).toFixed(1)} s, ${count(Math.round(LARGE / (large.wallMs / 1000)))}`,
        ],
        [`peak RSS ${count(LARGE)} items ÷ ${count(MIDDLE)} items (reference)`, (large.maxRss / middle.maxRss).toFixed(2)],
        [`node ${CLI_HEAP_FLAG}: peak RSS, ${count(SMALL)} items (median of ${SMALL_ROUNDS})`, mb(flaggedSmall)],
        [`node ${CLI_HEAP_FLAG}: peak RSS, ${count(LARGE)} items`, mb(flaggedLarge.maxRss)],
        [
          `node ${CLI_HEAP_FLAG}: peak RSS ${count(LARGE)} items ÷ ${count(SMALL)} items (reference)`,
          (flaggedLarge.maxRss / flaggedSmall).toFixed(2),
        ],
        [`in a worker with a capped heap (prototype): peak RSS, ${count(SMALL)} items (median of ${SMALL_ROUNDS})`, mb(workerSmall)],
        [`in a worker with a capped heap (prototype): peak RSS, ${count(LARGE)} items`, mb(workerLarge.maxRss)],
        [
          `in a worker with a capped heap (prototype): peak RSS ${count(LARGE)} items ÷ ${count(SMALL)} items (reference)`,
          (workerLarge.maxRss / workerSmall).toFixed(2),
        ],
        [
          `${count(LARGE)} items: CPU time, plain ÷ in a worker (prototype)`,
          `${(large.cpuMs / 1000).toFixed(1)} s ÷ ${(workerLarge.cpuMs / 1000).toFixed(1)} s`,
        ],
      ],
      checks: [
        {
          name: `live heap ${count(LARGE)} items ÷ ${count(SMALL)} items (after forced collections)`,
          value: `${liveRatio.toFixed(2)} (${mb(liveLarge)}, ${mb(liveSmall)})`,
          target: `≤ ${MAX_RATIO}`,
          pass: liveRatio <= MAX_RATIO,
        },
        {
          name: `peak RSS ${count(LARGE)} items ÷ ${count(SMALL)} items`,
          value: ratio.toFixed(2),
          target: `≤ ${MAX_RATIO}`,
          pass: ratio <= MAX_RATIO,
        },
        {
          name: `peak RSS ${count(LARGE)} items`,
          value: `${largeMb.toFixed(1)} MB`,
          target: `< ${MAX_PEAK_MB} MB`,
          pass: largeMb < MAX_PEAK_MB,
        },
      ],
    };
  } finally {
    await sandbox.stop();
  }
}
