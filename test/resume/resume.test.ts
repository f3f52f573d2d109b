import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { startCli } from '../helpers/cli-process.js';
import { runMain } from '../helpers/run-main.js';
import { envFor, WIDE_OPEN } from '../helpers/sandbox-per-test.js';

let sandbox: RunningSandbox;
let env: Record<string, string>;
let dir: string;
let input: string;
let reference: Buffer;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: WIDE_OPEN, credit: 1_000_000, latencyMs: [5, 25] });
  env = envFor(sandbox);
  dir = mkdtempSync(join(tmpdir(), 'propdata-resume-'));
  const lines = ['address,zipcode,meta'];
  for (let i = 1; i <= 400; i++) lines.push(`${i} Resume Rd,21${String(i % 7).padStart(3, '0')},m${i}`);
  input = join(dir, 'in.csv');
  writeFileSync(input, `${lines.join('\n')}\n`);
  const out = join(dir, 'reference.csv');
  const result = await runMain(['property', 'value', '-i', input, '-o', out, '--batch-size', '5', '--concurrency', '2', '-q'], { env });
  expect(result.code).toBe(0);
  reference = readFileSync(out);
});

afterAll(async () => {
  await sandbox.close();
});

/** Starts the compiled CLI and kills it with `signal` once its output has some records. */
async function runAndKill(output: string, signal: NodeJS.Signals, runEnv = env): Promise<{ code: number | null; stderr: string }> {
  const cli = startCli(['property', 'value', '-i', input, '-o', output, '--batch-size', '5', '--concurrency', '2'], { env: runEnv });
  const poll = setInterval(() => {
    if (existsSync(output) && statSync(output).size > 4_000) {
      clearInterval(poll);
      cli.child.kill(signal);
    }
  }, 5);
  const { code } = await cli.exited;
  clearInterval(poll);
  return { code, stderr: cli.stderr() };
}

describe('--resume', () => {
  it('after kill -9, continues and produces a file identical to an uninterrupted run', async () => {
    const output = join(dir, 'killed.csv');
    await runAndKill(output, 'SIGKILL');
    expect(readFileSync(output).length).toBeLessThan(reference.length);
    const resumed = await runMain(
      ['property', 'value', '-i', input, '-o', output, '--batch-size', '5', '--concurrency', '2', '--resume', '-q'],
      { env },
    );
    expect(resumed.code).toBe(0);
    expect(readFileSync(output).equals(reference)).toBe(true);
  });

  it('after Ctrl-C, exits 130 with a whole file and the command that resumes', async () => {
    const output = join(dir, 'interrupted.csv');
    // A store of its own: the run killed above stays registered on the shared store for a lease, and
    // a run started meanwhile reuses all it and its continuation bought (PROTOCOL.md, rule 1), which
    // would finish this one before its Ctrl-C.
    const ownStore = { ...env, PROPDATA_STORE: join(mkdtempSync(join(tmpdir(), 'propdata-resume-store-')), 'propdata.db') };
    const { code, stderr } = await runAndKill(output, 'SIGINT', ownStore);
    expect(code).toBe(130);
    expect(stderr).toMatch(/--resume/);
    const partial = readFileSync(output, 'utf8');
    expect(partial.endsWith('\n')).toBe(true);
    expect(reference.toString().startsWith(partial)).toBe(true);
    const resumed = await runMain(
      ['property', 'value', '-i', input, '-o', output, '--batch-size', '5', '--concurrency', '2', '--resume', '-q'],
      { env: ownStore },
    );
    expect(resumed.code).toBe(0);
    expect(readFileSync(output).equals(reference)).toBe(true);
  });

  it('writes afresh an output of another endpoint, saying so, and says nothing is left on a complete file', async () => {
    const output = join(dir, 'switched.csv');
    expect((await runMain(['property', 'rental_value', '-i', input, '-o', output, '-q'], { env })).code).toBe(0);
    const switched = await runMain(['property', 'value', '-i', input, '-o', output, '--resume'], { env });
    expect(switched.code).toBe(0);
    expect(switched.stderr).toMatch(
      /--resume: the endpoint or options that shape the output differ from the earlier run; writing .*switched\.csv afresh/,
    );
    expect(readFileSync(output).equals(reference)).toBe(true);
    const done = await runMain(['property', 'value', '-i', input, '-o', output, '--batch-size', '50', '--resume'], { env });
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/nothing to resume/);
    expect(readFileSync(output).equals(reference)).toBe(true);
  });
});
