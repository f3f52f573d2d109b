import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { databasePerFile, freshSchema, postgresPassword } from '../helpers/postgres.js';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const VALMONTE = ['property', 'value', '--address', '43 Valmonte Plaza', '--zipcode', '90274', '--json'];
const WARNING = /propdata: warning: (--key and --secret|--secret) on the command line can be read by other users of this machine/g;

const scratch = () => mkdtempSync(join(tmpdir(), 'propdata-credentials-'));

describe('credentials on the command line', () => {
  const sandbox = sandboxPerTest();

  it('warn once on stderr that other users can read them, naming the safer sources; not with --quiet', async () => {
    const { PROPDATA_BASE_URL, PROPDATA_API_KEY, PROPDATA_API_SECRET } = await sandbox.start();
    const flags = ['--base-url', PROPDATA_BASE_URL!, '--key', PROPDATA_API_KEY!, `--secret=${PROPDATA_API_SECRET}`];
    const env = { PROPDATA_CONFIG_DIR: scratch() };
    const warned = await runMain([...VALMONTE, ...flags], { env });
    expect(warned.code).toBe(0);
    expect(warned.stderr.match(WARNING)).toEqual([
      'propdata: warning: --key and --secret on the command line can be read by other users of this machine',
    ]);
    expect(warned.stderr).toMatch(/PROPDATA_API_SECRET.*propdata config set key\|secret -.*--secret-file FILE/);
    expect((await runMain([...VALMONTE, ...flags, '--quiet'], { env })).stderr).toBe('');
    // From the environment, nothing to warn of.
    expect((await runMain(VALMONTE, { env: { ...env, PROPDATA_BASE_URL, PROPDATA_API_KEY, PROPDATA_API_SECRET } })).stderr).toBe('');
  });

  it('--secret-file reads the secret from a file (one final line break dropped), and says what is wrong with one', async () => {
    const { PROPDATA_BASE_URL, PROPDATA_API_KEY, PROPDATA_API_SECRET } = await sandbox.start();
    const dir = scratch();
    const file = join(dir, 'secret.txt');
    writeFileSync(file, `${PROPDATA_API_SECRET}\n`, { mode: 0o600 });
    const env = { PROPDATA_CONFIG_DIR: scratch(), PROPDATA_BASE_URL, PROPDATA_API_KEY };
    const fromFile = await runMain([...VALMONTE, '--secret-file', file], { env });
    expect(fromFile.stderr).toBe('');
    expect(fromFile.code).toBe(0);

    const missing = await runMain([...VALMONTE, '--secret-file', join(dir, 'nope.txt')], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^propdata: cannot read --secret-file .*nope\.txt: it does not exist; give a file that holds the API secret\n$/,
    );
    writeFileSync(join(dir, 'empty.txt'), '\n');
    expect((await runMain([...VALMONTE, '--secret-file', join(dir, 'empty.txt')], { env })).stderr).toMatch(/empty\.txt is empty/);
    const both = await runMain([...VALMONTE, '--secret-file', file, '--secret', 'other'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give the API secret once: --secret or --secret-file, not both/);
  });
});

describe('config set secret VALUE', () => {
  it('warns that the secret is in the process list and the shell history; "-" (stdin) does not', async () => {
    const env = { PROPDATA_CONFIG_DIR: scratch() };
    const given = await runMain(['config', 'set', 'secret', 'very-secret-1234'], { env });
    expect(given.code).toBe(0);
    expect(given.stderr).toMatch(
      /^propdata: warning: a secret on the command line can be read by other users .*shell history; next time: propdata config set secret - < FILE\n$/,
    );
    expect(given.stderr).not.toContain('very-secret');
    expect((await runMain(['config', 'set', 'secret', '-'], { env, stdin: 'from-stdin-5678\n' })).stderr).toBe('');
    expect((await runMain(['config', 'set', 'key', 'my-key'], { env })).stderr).toBe('');
  });

  it('refuses a store URL holding a password, from the command line or stdin, naming where the password goes; keeps nothing of it', async () => {
    const env = { PROPDATA_CONFIG_DIR: scratch() };
    for (const url of ['postgres://jobs:hunter2@db.internal/propdata', 'postgres://jobs@db.internal/propdata?password=hunter2']) {
      for (const given of [
        await runMain(['config', 'set', 'store', url], { env }),
        await runMain(['config', 'set', 'store', '-'], { env, stdin: `${url}\n` }),
      ]) {
        expect(given.code).toBe(2);
        expect(given.stderr).toMatch(
          /the URL holds a password, which the config would keep in the clear: store postgres:\/\/jobs@db\.internal\/propdata and give the password with PGPASSWORD or in ~\/\.pgpass, or the whole URL in PROPDATA_STORE/,
        );
        expect(given.stderr + given.stdout).not.toContain('hunter2');
      }
    }
    expect((await runMain(['config', 'list'], { env })).stdout).not.toContain('hunter2');
    expect((await runMain(['config', 'get', 'store'], { env })).stdout).toBe('');
    expect((await runMain(['config', 'set', 'store', 'postgres://jobs@db.internal/propdata'], { env })).stderr).toBe('');
  });

  it('refuses an empty store, saying why, and keeps the one set before', async () => {
    const env = { PROPDATA_CONFIG_DIR: scratch() };
    expect((await runMain(['config', 'set', 'store', 'postgres://jobs@db.internal/propdata'], { env })).code).toBe(0);
    for (const value of ['', '  ']) {
      const empty = await runMain(['config', 'set', 'store', value], { env });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toMatch(/config set store: the value is empty, which names no store; .*config unset store/);
    }
    expect((await runMain(['config', 'get', 'store'], { env })).stdout).toBe('postgres://jobs@db.internal/propdata\n');
  });
});

describe('a store password in a --store URL', () => {
  const database = databasePerFile();
  const WARNED =
    /^propdata: warning: the password in --store can be read by other users of this machine \(ps, \/proc\/PID\/cmdline\) while it runs; use PGPASSWORD or ~\/\.pgpass for the password, or PROPDATA_STORE for the whole URL$/m;

  it('warns once, naming the safe places, in either spelling of the flag; not with --quiet, nor from PROPDATA_STORE or the config', async () => {
    const url = freshSchema(database.url);
    const env = { PROPDATA_CONFIG_DIR: scratch() };
    for (const flag of [['--store', url], [`--store=${url}`]]) {
      const warned = await runMain(['store', 'info', ...flag], { env });
      expect(warned.code).toBe(0);
      expect(warned.stderr.match(new RegExp(WARNED.source, 'gm'))).toHaveLength(1);
      expect(warned.stderr + warned.stdout).not.toContain(postgresPassword());
    }
    const quiet = await runMain([...VALMONTE, '--sandbox', '--store', url, '--quiet'], { env });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect((await runMain(['store', 'info'], { env: { ...env, PROPDATA_STORE: url } })).stderr).toBe('');
    // The same database without the password in the URL: nothing to warn of (node-postgres reads PGPASSWORD from the process's environment).
    vi.stubEnv('PGPASSWORD', postgresPassword());
    onTestFinished(() => {
      vi.unstubAllEnvs();
    });
    const bare = new URL(url);
    bare.password = '';
    const withoutPassword = await runMain(['store', 'info', '--store', bare.toString()], { env });
    expect(withoutPassword.code).toBe(0);
    expect(withoutPassword.stdout).toMatch(/^store {5}postgres:\/\/\w+@/);
    expect(withoutPassword.stderr).toBe('');
    expect((await runMain(['config', 'set', 'store', '-'], { env, stdin: `${bare.toString()}\n` })).code).toBe(0);
    const fromConfig = await runMain(['store', 'info'], { env });
    expect(fromConfig.code).toBe(0);
    expect(fromConfig.stdout).toMatch(/^store {5}postgres:\/\/\w+@/);
    expect(fromConfig.stderr).toBe('');
  });
});
