import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runShell } from '../helpers/cli-process.js';
import { codeBlocks, docSection } from '../helpers/docs.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandbox = sandboxPerTest();

/** The README's account block, as a reader types it, its placeholders for a sandbox's values. */
const ACCOUNT_BLOCK = codeBlocks(docSection('README.md', 'Your account'), 'sh')[0]!;

/** A reader's folder: propdata on the PATH, a config of its own, and none of the test run's PROPDATA_* settings. */
function readersShell() {
  const cwd = mkdtempSync(join(tmpdir(), 'propdata-account-'));
  const bin = join(cwd, 'bin');
  mkdirSync(bin);
  symlinkSync(BIN, join(bin, 'propdata'));
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    PROPDATA_HOME: join(cwd, 'home'),
    PROPDATA_CONFIG_DIR: join(cwd, 'config'),
    PROPDATA_BASE_URL: undefined,
    PROPDATA_API_KEY: undefined,
    PROPDATA_API_SECRET: undefined,
  };
  return { cwd, env };
}

describe("the README's account section", () => {
  it('works as written once the provider gives the base URL, key and secret', async () => {
    const account = await sandbox.start();
    const { cwd, env } = readersShell();
    writeFileSync(join(cwd, 'secret.txt'), `${account.PROPDATA_API_SECRET}\n`);
    expect(ACCOUNT_BLOCK).toContain('https://api.example.com');
    const script = ACCOUNT_BLOCK.replace('https://api.example.com', account.PROPDATA_BASE_URL!).replace(
      'YOUR_KEY',
      account.PROPDATA_API_KEY!,
    );
    const ran = await runShell(script, { cwd, env, shellFlags: ['-e'] });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/43 Valmonte Plz/);
  });

  it('without the base URL, says what it is and where it comes from; a host not found is named, with --base-url, without retries', async () => {
    const { cwd, env } = readersShell();
    const keyOnly = await runShell('propdata config set key k && propdata config set secret s && propdata property value --slug a', {
      cwd,
      env,
    });
    expect(keyOnly.code).toBe(2);
    expect(keyOnly.stderr).toMatch(/no base URL configured \(the base URL is the service's address, given .* by the account's provider\)/);
    // A name that does not exist is said at once (it took 9.8 s of retries): --verbose logs one request.
    const wrongHost = await runShell('propdata config set base-url https://api.invalid && propdata property value --slug a --verbose', {
      cwd,
      env,
    });
    expect(wrongHost.code).toBe(1);
    expect(wrongHost.stderr).toMatch(/could not reach the service: host api\.invalid not found; check the base URL \(--base-url, /);
    expect(wrongHost.stderr.match(/network error/g)).toHaveLength(1);
  });
});
