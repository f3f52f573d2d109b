import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runShell } from '../helpers/cli-process.js';
import { codeBlocks, docSection } from '../helpers/docs.js';
import { envFor } from '../helpers/sandbox-per-test.js';
import { freePort, testCertificate } from './serve-process.js';

/**
 * The team setup of the several-machines guide, its commands as written but for the gateway's address (this machine's,
 * on a free port) and alice's secret (the one `keys add` printed): the operator's block on the
 * gateway's host, against a sandbox standing for the account, then a client's, which trusts the
 * gateway's test certificate through the environment (NODE_EXTRA_CA_CERTS, CURL_CA_BUNDLE).
 */
const BIN = fileURLToPath(new URL('../../bin/propdata.js', import.meta.url));

function guideBlocks(): [string, string] {
  const blocks = codeBlocks(docSection('docs/several-machines.md', 'One gateway for the team: `propdata serve`'), 'sh');
  if (blocks.length < 2) throw new Error("the guide's team setup has no operator's and client's sh blocks");
  return [blocks[0]!, blocks[1]!];
}

let sandbox: RunningSandbox | undefined;
afterAll(async () => {
  await sandbox?.close();
});

describe("the several-machines guide's team setup", () => {
  it(
    'runs as written: keys issued, the gateway over TLS, and a client through it with propdata and curl',
    { timeout: 60_000 },
    async () => {
      const [operator, client] = guideBlocks();
      const dir = mkdtempSync(join(tmpdir(), 'propdata-team-'));
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      symlinkSync(BIN, join(bin, 'propdata'));
      testCertificate(dir);
      writeFileSync(join(dir, 'homes.csv'), 'address,zipcode\n43 Valmonte Plaza,90274\n7500 Melrose Ave,90046\n1 Main St,21201\n');
      sandbox = await startSandbox({ credit: 1_000_000 });
      const port = String(await freePort());
      const path = `${bin}:${process.env.PATH ?? ''}`;

      // The operator's block: its last command (the gateway) runs until it is stopped.
      const gatewayHost = {
        ...envFor(sandbox),
        PATH: path,
        PROPDATA_HOME: join(dir, 'gateway-home'),
        PROPDATA_CONFIG_DIR: join(dir, 'gateway-config'),
      };
      const served = spawn('sh', ['-c', operator.replace('--port 8443', `--port ${port}`)], {
        env: { ...process.env, ...gatewayHost },
        cwd: dir,
        detached: true,
      });
      // A failed expectation must not leave the gateway serving after the test run.
      onTestFinished(() => {
        try {
          process.kill(-served.pid!, 'SIGKILL');
        } catch {
          // Already stopped, as the test's own SIGTERM leaves it.
        }
      });
      let log = '';
      served.stdout.on('data', (part: Buffer) => (log += part.toString()));
      served.stderr.on('data', (part: Buffer) => (log += part.toString()));
      // Closed once every process of the block is done with its output: the sh, and the gateway it started.
      const exited = new Promise<number | null>((resolve) => served.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        const poll = setInterval(() => {
          if (log.includes('listening on')) {
            clearInterval(poll);
            resolve();
          }
        }, 20);
        void exited.then(() => reject(new Error(`the operator's block ended:\n${log}`)));
      });
      expect(log).toContain('key alice issued: a budget of 50.00 USD a month; every endpoint');
      expect(log).toContain('key etl issued: no budget of its own; endpoints property/value,property/rental_value');
      expect(log).toContain(`listening on every interface, port ${port}: clients use https://${hostname()}:${port}`);
      const secret = /key alice issued[\s\S]*?secret: (\S+)/.exec(log)![1]!;

      const asWritten = client.replaceAll('gw.example.com:8443', `127.0.0.1:${port}`).replaceAll('ALICE_SECRET', secret);
      const ran = await runShell(asWritten, {
        cwd: dir,
        env: {
          PATH: path,
          PROPDATA_HOME: join(dir, 'client-home'),
          NODE_EXTRA_CA_CERTS: join(dir, 'gw.pem'),
          CURL_CA_BUNDLE: join(dir, 'gw.pem'),
        },
      });
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      const rows = parse<Record<string, string>>(readFileSync(join(dir, 'values.csv')), { columns: true });
      expect(rows.map((row) => row._status)).toEqual(['ok', 'ok', expect.stringMatching(/ok|no_content/)]);
      // curl's GET came from the store: propdata's batch had bought it.
      expect(JSON.parse(ran.stdout.slice(ran.stdout.indexOf('[{')))[0]['property/value'].api_code).toBe(0);
      expect(sandbox.usage().components).toBe(3);
      expect(log).toMatch(/ alice 127\.0\.0\.1 GET \/v2\/property\/value -> 200 items=1 from-store=1 /);

      process.kill(-served.pid!, 'SIGTERM');
      await exited;
      expect(log).toContain('propdata serve stopped');
    },
  );
});
