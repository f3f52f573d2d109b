import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli as propdata, runShell, startCli, untilStderr } from '../helpers/cli-process.js';
import { codeBlocks, docSection, ROOT } from '../helpers/docs.js';

const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));

describe('bin/propdata.js', () => {
  it("answers the README's first run, as written, by npx in the clone", async () => {
    const install = codeBlocks(docSection('README.md', 'Install and a first run'), 'sh')[0]!.trim().split('\n');
    expect(install[0]).toBe('npm ci');
    const result = await runShell(install[1]!, { cwd: ROOT });
    expect(result.code).toBe(0);
    const chunks = JSON.parse(result.stdout);
    expect(chunks[0]['property/value'].result.value.price_mean).toBeGreaterThan(0);
    expect(result.stderr).toMatch(/synthetic/);
  });

  it('enriches the sample file, one row per input row', async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'propdata-bin-')), 'out.csv');
    const result = await propdata(['property', 'value', '--input', join(SAMPLES, 'addresses.csv'), '--output', output, '--sandbox']);
    const inputRows = readFileSync(join(SAMPLES, 'addresses.csv'), 'utf8').trim().split('\n').length - 1;
    const outputRows = readFileSync(output, 'utf8').trim().split('\n').length - 1;
    // samples/README.md: row 53 has no address, so the run completes with one invalid_input (exit 3).
    expect(result.code).toBe(3);
    expect(outputRows).toBe(inputRows);
    expect(result.stderr).toMatch(/\d+ ok, \d+ no_content, 1 invalid_input/);
  });

  it('sends 32 requests at once without a warning of leaking listeners', async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'propdata-bin-')), 'out.csv');
    // 53 rows in requests of 2, deduplication off: 26 requests, all waiting for the pacer or the answer at once.
    const args = ['property', 'value', '--input', join(SAMPLES, 'addresses.csv'), '--output', output, '--sandbox', '--no-store'];
    const result = await propdata([...args, '--batch-size', '2', '--concurrency', '32', '--no-dedupe']);
    expect(result.code).toBe(3);
    expect(result.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
  });

  it('prints a guide from the docs/ it ships with: propdata help spreadsheets', async () => {
    const result = await propdata(['help', 'spreadsheets']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# Spreadsheets\n/);
    expect(result.stdout).toContain('--excel');
  });

  it('exits 2 with one line for a usage error', async () => {
    const result = await propdata(['property', 'value', '--zipcode', '90274', '--sandbox']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('stops at once on a second Ctrl-C, without waiting for the answer in flight', async () => {
    // A service that takes every request and never answers: only the second Ctrl-C can end the run.
    const server = createServer(() => undefined);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const arrived = once(server, 'request');
    const dir = mkdtempSync(join(tmpdir(), 'propdata-bin-'));
    const output = join(dir, 'out.csv');
    const cli = startCli(['property', 'value', '--input', join(SAMPLES, 'addresses.csv'), '--output', output], {
      env: {
        PROPDATA_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        PROPDATA_API_KEY: 'k',
        PROPDATA_API_SECRET: 's',
      },
    });
    const { child } = cli;
    const acknowledged = untilStderr(cli, /Ctrl-C again to abort/);
    try {
      await arrived;
      child.kill('SIGINT');
      // The first is acknowledged at once; the run stays, waiting for its request in flight.
      await acknowledged;
      expect(child.exitCode).toBeNull();
      child.kill('SIGINT');
      const { code } = await cli.exited;
      expect(code).toBe(130);
      expect(readFileSync(output, 'utf8').split('\n')[1]).toBe('');
    } finally {
      child.kill('SIGKILL');
      server.closeAllConnections();
      server.close();
    }
  });
});
