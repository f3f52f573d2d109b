import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { BIN } from '../helpers/cli-process.js';
import { codeBlocks, docSection } from '../helpers/docs.js';
import { envFor } from '../helpers/sandbox-per-test.js';

/**
 * The nightly guide's own script, unchanged but for the folder it enters, run by sh through the
 * compiled bin against the sandbox, night after night: rows change between nights, one night is
 * killed (kill -9) and the script is run again, and a night with nothing new refreshes from the
 * store. Every night must say "complete", and the account must pay for each answer once.
 */
const FOLDER = '/data/enrichment';

/** The sh block of docs/nightly.md's "The nightly script". */
function guideScript(): string {
  const script = codeBlocks(docSection('docs/nightly.md', 'The nightly script'), 'sh')[0];
  if (!script?.includes(`cd ${FOLDER}\n`)) throw new Error(`the nightly guide's script no longer enters ${FOLDER}`);
  return script;
}

let sandbox: RunningSandbox;
let dir: string;
let env: Record<string, string>;
const ROWS = 200;

beforeAll(async () => {
  // 50 components a second: a night of 150 new rows takes three windows, and is killed after the first.
  sandbox = await startSandbox({ rateLimits: [{ limit: 50, periodSeconds: 1 }], credit: 1_000_000, strict: true, latencyMs: [20, 50] });
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

/** Tonight's homes: `changed` of them (from the first) new since the first night. */
function homes(night: number, changed: number): void {
  const lines = Array.from({ length: ROWS }, (_, i) => (i < changed ? `${i + 1} Night${night} Ave,21201` : `${i + 1} Harbor St,21201`));
  writeFileSync(join(dir, 'homes.csv'), `address,zipcode\n${lines.join('\n')}\n`);
}

/** Runs the script; with `killAfter`, kill -9 the propdata it started once the account has been charged that many components. */
function night(killAfter?: number): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', [join(dir, 'enrich.sh')], { env: { ...process.env, ...env } });
    let stdout = '';
    child.stdout.on('data', (part: Buffer) => (stdout += part.toString()));
    const poll =
      killAfter === undefined
        ? undefined
        : setInterval(() => {
            if (sandbox.usage().components >= killAfter) {
              clearInterval(poll);
              // The sh's child: the propdata it started.
              spawn('pkill', ['-KILL', '-P', String(child.pid)]);
            }
          }, 5);
    child.on('exit', (code) => {
      if (poll) clearInterval(poll);
      resolve({ code, stdout });
    });
  });
}

const dataRows = () => readFileSync(join(dir, 'values.csv'), 'utf8').trimEnd().split('\n').length - 1;

describe("the nightly guide's script", () => {
  it('completes night after night, interrupted or not, and pays for each answer once', { timeout: 60_000 }, async () => {
    homes(1, 0);
    expect(await night()).toMatchObject({ code: 0, stdout: 'complete\n' });
    expect(sandbox.usage().components).toBe(ROWS);

    // 5% of the rows change: only they are bought.
    homes(2, 10);
    expect(await night()).toMatchObject({ code: 0, stdout: 'complete\n' });
    expect(sandbox.usage().components).toBe(ROWS + 10);

    // Most rows change (three windows' worth), and the night is killed once the first window's answers are bought.
    homes(3, 150);
    const killed = await night(ROWS + 10 + 50);
    expect(killed.stdout).toBe('failed: see the message above\n');
    expect(sandbox.usage().components).toBeLessThan(ROWS + 10 + 150);
    expect(await night()).toMatchObject({ code: 0, stdout: 'complete\n' });
    expect(dataRows()).toBe(ROWS);
    // What was in flight at the kill (a window's worth at most) may have been bought twice; nothing else.
    expect(sandbox.usage().chargedAgain.sections).toBeLessThanOrEqual(50);
    expect(sandbox.usage().components - sandbox.usage().chargedAgain.sections).toBe(ROWS + 10 + 150);
    const afterKill = sandbox.usage().components;

    // Nothing new: the refresh comes from the store.
    expect(await night()).toMatchObject({ code: 0, stdout: 'complete\n' });
    expect(sandbox.usage().components).toBe(afterKill);
    expect(JSON.parse(readFileSync(join(dir, 'values.report.json'), 'utf8'))).toMatchObject({ outcome: 'completed', requests: 0 });
  });
});
