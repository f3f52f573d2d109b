import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
});
