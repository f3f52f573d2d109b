import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { FAKE_EPOCH, FakeClock } from '../../helpers/fake-clock.js';
import { jain, job, seeded } from '../../helpers/one-account.js';
import { strictService } from '../../helpers/strict-service.js';
import { memoryPacer } from '../../../src/throttle/memory-pacer.js';
import { emptySharedState } from '../../../src/throttle/shared-pacer.js';
import { allowedRate, idealLastSend, parseWindows } from '../fixed-windows.mjs';

/** Starts spread evenly over the longest window: where in a window a run begins. */
const PHASES = 40;

/**
 * Runs without a shared store (a job alone, or four on separate machines) and four jobs sharing
 * one store (its pacer's rules on a state in memory), each started at every phase: the
 * real-process figures (pacing, parallel) draw one phase a run, so a cost that only some starts
 * pay shows there as luck. Lengths: the real figures' own, and a run of real length.
 */
const CASES: { windows: string; jobs: number; items: number; store?: true }[] = [
  { windows: '100/2', jobs: 1, items: 1_000 },
  { windows: '100/2', jobs: 1, items: 10_000 },
  { windows: '1000/5', jobs: 1, items: 3_000 },
  { windows: '1000/5', jobs: 1, items: 30_000 },
  { windows: '250/60', jobs: 1, items: 500 },
  { windows: '250/60', jobs: 1, items: 5_000 },
  { windows: '250/6', jobs: 4, items: 1_000 },
  { windows: '250/6', jobs: 4, items: 1_125 },
  { windows: '250/6', jobs: 4, items: 10_125 },
  { windows: '50/1,250/10', jobs: 4, items: 600 },
  { windows: '50/1,250/10', jobs: 4, items: 10_125 },
  { windows: '250/6', jobs: 4, items: 1_000, store: true },
  { windows: '250/6', jobs: 4, items: 10_125, store: true },
  { windows: '50/1,250/10', jobs: 4, items: 600, store: true },
];

async function run(windows: ReturnType<typeof parseWindows>, jobs: number, items: number, phase: number, store: boolean) {
  const longest = Math.max(...windows.map((w) => w.periodSeconds * 1000));
  const random = seeded(phase * 7 + jobs);
  const start = FAKE_EPOCH + Math.floor((phase * longest) / PHASES);
  const clock = new FakeClock(start);
  const service = strictService(windows, clock);
  const shared = emptySharedState();
  // As in across-machines.test.ts: jobs come up within half a second, round trips of 2 to 6 ms.
  const results = await Promise.all(
    Array.from({ length: jobs }, (_, i) =>
      job(
        start + Math.floor(random() * 500),
        Math.ceil(items / jobs),
        service,
        clock,
        random,
        2 + Math.floor(random() * 5),
        store ? memoryPacer(shared, `job${i}`, clock) : undefined,
      ),
    ),
  );
  const first = service.counted[0]!.at;
  const last = service.counted.at(-1)!.at;
  const ideal = idealLastSend(
    first,
    service.counted.map((c) => c.components),
    windows,
  );
  const throughputs = results.map((r) => r.components / Math.max(0.001, (r.lastAnswer - first) / 1000));
  return { vsIdeal: last > first ? (ideal - first) / (last - first) : 1, jain: jain(throughputs), refused: service.refused };
}

it('sweeps the start phase', async () => {
  const rows = [];
  for (const { windows: text, jobs, items, store = false } of CASES) {
    const windows = parseWindows(text);
    const runs = [];
    for (let phase = 0; phase < PHASES; phase++) runs.push(await run(windows, jobs, items, phase, store));
    rows.push({ windows: text, jobs, items, store, seconds: items / allowedRate(windows), runs });
  }
  writeFileSync(process.env.SWEEP_OUT ?? 'sweep.json', JSON.stringify(rows));
});
