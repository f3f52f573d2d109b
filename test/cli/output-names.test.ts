import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runMain } from '../helpers/run-main.js';
import { envFor, WIDE_OPEN } from '../helpers/sandbox-per-test.js';

/**
 * One writer per output file, whatever name a run gives it: a run of the compiled CLI writes its
 * output at the service's pace while runs on other names of that file (a hard link, a symlink,
 * `dir/../file`) are started against a sandbox of their own, so that what they buy is counted apart.
 */
const BIN = fileURLToPath(new URL('../../bin/propdata.js', import.meta.url));
const ROWS = 240;

const sandboxes: RunningSandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
});

async function sandbox(options: Parameters<typeof startSandbox>[0]): Promise<RunningSandbox> {
  const running = await startSandbox({ credit: 1_000_000, ...options });
  sandboxes.push(running);
  return running;
}

const args = (input: string, output: string) => ['property', 'value', '-i', input, '-o', output, '--batch-size', '10', '--no-store', '-q'];

const recordsIn = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').length - 1 : 0);

async function untilWritten(path: string, rows: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (recordsIn(path) < rows) {
    if (Date.now() > deadline) throw new Error(`the output never reached ${rows} records`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a second run on another name of an output being written', () => {
  it('is refused in one line naming the first run, buys nothing, and may run once the first has ended', async () => {
    const paced = await sandbox({ rateLimits: [{ limit: 20, periodSeconds: 1 }], latencyMs: [50, 150] });
    const other = await sandbox({ rateLimits: WIDE_OPEN });
    const dir = mkdtempSync(join(tmpdir(), 'propdata-names-'));
    const input = join(dir, 'in.csv');
    writeFileSync(input, `address,zipcode\n${Array.from({ length: ROWS }, (_, i) => `${i + 1} Main St,21201`).join('\n')}\n`);
    const output = join(dir, 'out.csv');
    const first = spawn(process.execPath, [BIN, ...args(input, output)], {
      env: { ...process.env, ...envFor(paced), NO_COLOR: '1' },
      stdio: 'ignore',
    });
    const exited = once(first, 'exit');
    await untilWritten(output, 20);

    mkdirSync(join(dir, 'elsewhere'));
    linkSync(output, join(dir, 'elsewhere', 'hard-link.csv'));
    symlinkSync(output, join(dir, 'symlink.csv'));
    mkdirSync(join(dir, 'sub'));
    const names = [join(dir, 'elsewhere', 'hard-link.csv'), join(dir, 'symlink.csv'), `${dir}/sub/../out.csv`];
    for (const name of names) {
      const refused = await runMain(args(input, name), { env: envFor(other) });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^propdata: .+ is being written by propdata pid ${first.pid}, started \\d\\d:\\d\\d:\\d\\d( \\(as .+\\))?; wait for it or stop it\\n$`,
        ),
      );
    }
    expect(other.usage().components).toBe(0);
    // Still running when the last was refused: the refusals met a live run, not a finished one.
    expect(first.exitCode).toBeNull();

    const [code] = (await exited) as [number];
    expect(code).toBe(0);
    expect(recordsIn(output)).toBe(ROWS);
    const second = await runMain(args(input, names[0]!), { env: envFor(other) });
    expect(second.code).toBe(0);
    expect(other.usage().components).toBe(ROWS);
    expect(recordsIn(output)).toBe(ROWS);
  }, 60_000);
});
