import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { BIN } from '../helpers/cli-process.js';
import { codeBlocks, docSection } from '../helpers/docs.js';
import { envFor } from '../helpers/sandbox-per-test.js';

/**
 * The nightly guide's own script, unchanged but for the folder it enters, run by sh through the
 * compiled bin against the sandbox for four nights on a 2,000-row file at the self-serve plan's
 * rate with its minute shrunk to a second (250 components a second), 5% of the rows new each
 * night. The first night is killed (kill -9) halfway, and a second copy started meanwhile finds
 * the lock taken; run again, it finishes. Every night must end 0 or name its one reason, and the
 * account must pay for each answer once (but what was in flight at the kill).
 */
const FOLDER = '/data/enrichment';
const ROWS = 2_000;
const CHANGED = 100;
const WINDOW = 250;

/** The sh block of docs/nightly.md's "The nightly script". */
function guideScript(): string {
  const script = codeBlocks(docSection('docs/nightly.md', 'The nightly script'), 'sh')[0];
  if (!script?.includes(`cd ${FOLDER}\n`)) throw new Error(`the nightly guide's script no longer enters ${FOLDER}`);
  return script;
}

let sandbox: RunningSandbox;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: [{ limit: WINDOW, periodSeconds: 1 }], credit: 1_000_000, strict: true, latencyMs: [20, 50] });
  dir = mkdtempSync(join(tmpdir(), 'propdata-nights-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'propdata'));
  writeFileSync(join(dir, 'enrich.sh'), guideScript().replace(`cd ${FOLDER}\n`, `cd ${dir}\n`));
  env = { ...envFor(sandbox), PATH: `${bin}:${process.env.PATH ?? ''}`, PROPDATA_HOME: join(dir, 'home') };
});

afterAll(async () => {
  await sandbox.close();
});

/** Tonight's homes: each night since the first has made `CHANGED` rows new (night 2 the first 100, night 3 the next...). */
function homes(night: number): void {
  const lines = Array.from({ length: ROWS }, (_, i) => {
    const changedOn = Math.floor(i / CHANGED) + 2;
    return changedOn <= night ? `${i + 1} Night${changedOn} Ave,21201` : `${i + 1} Harbor St,21201`;
  });
  writeFileSync(join(dir, 'homes.csv'), `address,zipcode\n${lines.join('\n')}\n`);
}

interface Night {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the script; `stop()` kill -9s the propdata it started (the sh's child), as the OOM killer or an operator would. */
function night(): { ended: Promise<Night>; stop: () => void } {
  const child = spawn('sh', [join(dir, 'enrich.sh')], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (part: Buffer) => (stdout += part.toString()));
  child.stderr.on('data', (part: Buffer) => (stderr += part.toString()));
  const ended = new Promise<Night>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { ended, stop: () => spawn('pkill', ['-KILL', '-P', String(child.pid)]) };
}

/** Resolves once the account has been charged `components`, looking every 5 ms. */
function charged(components: number): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (sandbox.usage().components < components) return;
      clearInterval(poll);
      resolve();
    }, 5);
  });
}

/** What propdata's quiet line says of a completed night: what values.csv holds, what was bought, the components, the rows the store answered. */
const NIGHT_LINE =
  /^propdata: completed: values\.csv holds ([^;]+); bought (\d+\.\d\d) USD at list price \(([\d,]+) components\); (?:the store answered ([\d,]+) rows whole \(\d+\.\d\d USD not bought again\)|nothing from the store)$/;
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

const dataRows = () => readFileSync(join(dir, 'values.csv'), 'utf8').trimEnd().split('\n').length - 1;
const usd = (amount: number) => amount.toFixed(2);

describe("the nightly guide's script", () => {
  it('says what a dollar buys at the list price', () => {
    const price = findEndpoint('property/value')!.price;
    const [, budget, answers, stated] = /(\d+) USD buys ([\d,]+) property\/value answers at the ([\d.]+) USD list price/.exec(
      guideScript(),
    )!;
    expect(Number(stated)).toBe(price);
    expect(Number(answers!.replace(',', ''))).toBe(Number(budget) / price);
  });

  it(
    'runs four nights on 2,000 rows, one killed and run again, each ending 0 or naming why, each answer bought once',
    { timeout: 60_000 },
    async () => {
      const price = findEndpoint('property/value')!.price;
      homes(1);
      // A report left by an earlier night, as after a night that completed.
      writeFileSync(join(dir, 'values.report.json'), '{"outcome": "completed"}\n');
      // The first night, killed once half of it is bought; a second copy started meanwhile finds the lock taken.
      const first = night();
      await charged(WINDOW);
      const overlapping = await night().ended;
      expect(overlapping).toMatchObject({ code: 1, stdout: 'not started: the last run is still going (it holds enrich.lock)\n' });
      await charged(ROWS / 2);
      first.stop();
      const killed = await first.ended;
      expect(killed.code).toBe(137);
      expect(killed.stdout).toBe(
        `tonight: ${usd(ROWS * price)} USD at list price (204 sections are not charged)\n` +
          'killed by signal 9 (9 is kill -9, or out of memory); run it again to continue: what was bought is kept\n',
      );
      // The killed night's report says it did not complete, not what the night before it said.
      expect(JSON.parse(readFileSync(join(dir, 'values.report.json'), 'utf8'))).toMatchObject({ outcome: 'running' });
      const boughtBeforeKill = sandbox.usage().components;
      expect(boughtBeforeKill).toBeLessThan(ROWS);

      // Run again, it buys only what the killed run had not kept: at most what was in flight (a window's worth) again.
      const rerun = await night().ended;
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stdout).toMatch(/^tonight: \d+\.\d\d USD at list price \(204 sections are not charged\)\n$/);
      // Quiet, the night still ends saying what it bought, at what cost, and what the store answered.
      expect(lastLine(rerun.stderr)).toMatch(NIGHT_LINE);
      expect(Number(/tonight: ([\d.]+)/.exec(rerun.stdout)![1]) / price).toBeLessThanOrEqual(ROWS - boughtBeforeKill + WINDOW);
      expect(dataRows()).toBe(ROWS);
      // Used twice (a 204 too, though not charged): only what was in flight at the kill.
      const afterFirstNight = sandbox.usage().components;
      expect(afterFirstNight - ROWS).toBeLessThanOrEqual(WINDOW);
      expect(sandbox.usage().chargedAgain.sections).toBeLessThanOrEqual(afterFirstNight - ROWS);

      // Nights 2 to 4: 5% of the rows are new each night, and only they are bought.
      for (const n of [2, 3, 4]) {
        homes(n);
        const tonight = await night().ended;
        expect(tonight, `night ${n}: ${tonight.stderr}`).toMatchObject({
          code: 0,
          stdout: `tonight: ${usd(CHANGED * price)} USD at list price (204 sections are not charged)\n`,
        });
        const [, holds, cost, components, fromStore] = NIGHT_LINE.exec(lastLine(tonight.stderr))!;
        expect(holds!.split(', ').reduce((sum, each) => sum + Number(each.split(' ')[0]!.replace(',', '')), 0)).toBe(ROWS);
        expect(Number(cost)).toBeLessThanOrEqual(CHANGED * price);
        expect(Number(cost)).toBeGreaterThan(0);
        expect(Number(components!.replace(',', ''))).toBe(CHANGED);
        expect(Number(fromStore!.replace(',', ''))).toBeGreaterThan(ROWS - CHANGED - ROWS / 10);
        expect(sandbox.usage().components).toBe(afterFirstNight + (n - 1) * CHANGED);
        expect(dataRows()).toBe(ROWS);
      }
      expect(JSON.parse(readFileSync(join(dir, 'values.report.json'), 'utf8'))).toMatchObject({ outcome: 'completed' });
    },
  );
});
