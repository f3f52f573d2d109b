import { join } from 'node:path';
import { allowedRate, idealLastSend, parseWindows } from '../fixed-windows.mjs';
import { inputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { batchArgs, runBatch } from '../propdata-run.mjs';
import { startSandbox } from '../sandbox.mjs';
import { startTrafficRecorder } from '../traffic-recorder.mjs';

const ITEMS = 1_000;
/** Issue 15: every single-job setup within 3% of a perfect client on the same clock. */
const MIN_VS_IDEAL = 0.97;

/**
 * Each case: the sandbox's windows, its fault flags, and propdata's own flags. Two windows are
 * 20/1,250/60 scaled down: the long window keeps its 250 components over 10 s instead of 60,
 * so that 1,000 items take about 40 s, and the short window (50/1) stays smaller than a default
 * batch of 100, as 20/1 is: propdata has to split its batches to the windows. The other
 * two-window case has a short window a default batch fits.
 */
const CASES = [
  { name: 'one tight window', windows: '100/2', sandbox: [], propdata: [] },
  { name: 'two windows, short one smaller than a batch', windows: '50/1,250/10', sandbox: [], propdata: [] },
  { name: 'two windows', windows: '100/1,250/10', sandbox: [], propdata: [] },
  { name: 'one tight window, 10% spurious 429s', windows: '100/2', sandbox: ['--spurious-429-rate', '0.1'], propdata: [] },
  // A wide window: 3,000 items (three windows and a little) so that it is paced at all.
  { name: 'one wide window', windows: '1000/5', sandbox: [], propdata: [], items: 3_000 },
  // 20/1,250/60 with the long window over 10 s: the short window a fifth of a batch.
  { name: 'two windows, short one a fifth of a batch', windows: '20/1,250/10', sandbox: [], propdata: [] },
  // The self-serve plan as it is: 500 items are two windows, a minute apart.
  { name: 'self-serve plan', windows: '250/60', sandbox: [], propdata: [], items: 500 },
];

/** A perfect client's span over ours, first send to last: 1 is as fast as the windows allow; 0 when a request can never fit. */
function vsIdeal(first, lastSend, ideal) {
  if (ideal === Infinity) return 0;
  if (!(lastSend > first)) return 1;
  return (ideal - first) / (lastSend - first);
}

async function runCase(pacingCase) {
  const items = pacingCase.items ?? ITEMS;
  const input = await inputFile(items);
  const windows = parseWindows(pacingCase.windows);
  const sandbox = await startSandbox(['--rate-limit', pacingCase.windows, ...pacingCase.sandbox]);
  const recorder = await startTrafficRecorder(sandbox.url);
  let run;
  try {
    const args = batchArgs(input, join(WORK, 'pacing-out.csv'), join(WORK, 'pacing-report.json'), pacingCase.propdata);
    run = await runBatch(args, { env: { ...sandbox.env, PROPDATA_BASE_URL: recorder.url } });
  } finally {
    await recorder.close();
    await sandbox.stop();
  }
  const exchanges = recorder.exchanges.sort((a, b) => a.at - b.at);
  const answered = exchanges.filter((exchange) => exchange.status === 200);
  const limit429 = exchanges.filter((exchange) => exchange.status === 429 && !exchange.injected).length;
  const injected429 = exchanges.filter((exchange) => exchange.injected).length;
  const components = answered.reduce((sum, exchange) => sum + exchange.items, 0);
  const first = exchanges[0]?.at ?? 0;
  const lastAnswer = Math.max(...answered.map((exchange) => exchange.answeredAt));
  const lastSend = Math.max(...answered.map((exchange) => exchange.at));
  const achieved = components > 0 ? components / ((lastAnswer - first) / 1000) : 0;
  const allowed = allowedRate(windows);
  const ideal = idealLastSend(
    first,
    answered.map((exchange) => exchange.items),
    windows,
  );
  const ratio = achieved / allowed;
  const versusIdeal = vsIdeal(first, lastSend, ideal);
  return {
    row: [
      pacingCase.name,
      `\`${pacingCase.windows}\``,
      `${components} of ${items}`,
      `${achieved.toFixed(1)} / ${allowed.toFixed(1)}`,
      ratio.toFixed(3),
      ideal === Infinity ? 'never fits' : versusIdeal.toFixed(3),
      String(limit429),
      String(injected429),
      `${(run.wallMs / 1000).toFixed(1)} s`,
    ],
    checks: [
      {
        name: `${pacingCase.name}: vs a perfect client`,
        value: versusIdeal.toFixed(3),
        target: `≥ ${MIN_VS_IDEAL}`,
        pass: versusIdeal >= MIN_VS_IDEAL,
      },
      { name: `${pacingCase.name}: 429s caused by the windows`, value: String(limit429), target: '0', pass: limit429 === 0 },
    ],
  };
}

/**
 * Pacing: 1,000 items (or the case's own number) against rate windows. The figure is "vs ideal":
 * when a perfect client, sending the same requests from the same first one, would have sent its
 * last, over when propdata did (fixed-windows.mjs). For reference, achieved is the components
 * answered 200 over the span from the first request's arrival to the last answer, and allowed the
 * tightest window's limit over its period; fixed windows give the first one free, so achieved can
 * beat allowed slightly.
 */
export async function pacing() {
  const rows = [];
  const checks = [];
  for (const pacingCase of CASES) {
    console.log(`pacing: ${pacingCase.name} (${pacingCase.windows})...`);
    const result = await runCase(pacingCase);
    rows.push(result.row);
    checks.push(...result.checks);
  }
  return {
    table: {
      header: [
        'case',
        'windows',
        'components answered',
        'components/s achieved / allowed',
        'ratio',
        'vs ideal',
        '429 (windows)',
        '429 (injected)',
        'wall',
      ],
      rows,
    },
    checks,
  };
}
