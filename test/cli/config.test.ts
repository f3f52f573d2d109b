import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

describe('propdata config', () => {
  it('stores settings, masks the secret in list and get, and unsets', async () => {
    const env = { PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-config-')) };
    const key = await runMain(['config', 'set', 'key', 'my-key'], { env });
    expect(key.code).toBe(0);
    expect(key.stdout).toBe(`key=my-key stored in ${join(env.PROPDATA_CONFIG_DIR, 'config.json')}\n`);
    const secret = await runMain(['config', 'set', 'secret', 'very-secret-1234'], { env });
    expect(secret.code).toBe(0);
    expect(secret.stdout).toMatch(/^secret=\*\*\*\*34 stored in /);
    const list = await runMain(['config', 'list'], { env });
    expect(list.stdout).toContain('key=my-key');
    expect(list.stdout).toContain('secret=****34');
    expect(list.stdout).not.toContain('very-secret');
    expect((await runMain(['config', 'get', 'secret'], { env })).stdout).not.toContain('very-secret');
    expect((await runMain(['config', 'path'], { env })).stdout).toContain(env.PROPDATA_CONFIG_DIR);
    await runMain(['config', 'unset', 'key'], { env });
    expect((await runMain(['config', 'get', 'key'], { env })).code).toBe(1);
  });

  it('refuses unknown settings and insecure base URLs (exit 2)', async () => {
    const env = { PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-config-')) };
    expect((await runMain(['config', 'set', 'colour', 'red'], { env })).code).toBe(2);
    const insecure = await runMain(['config', 'set', 'base-url', 'http://api.example.com'], { env });
    expect(insecure.code).toBe(2);
    expect(insecure.stderr).toMatch(/refusing plain http/);
  });

  it('uses flags over environment over stored config', async () => {
    const env = { PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-config-')) };
    await runMain(['config', 'set', 'base-url', 'http://127.0.0.1:9'], { env });
    // Nothing listens on port 9: the error names the URL that was chosen.
    const stored = await runMain(['property', 'value', '--slug', 'a', '--key', 'k', '--secret', 's', '--max-retries', '0'], { env });
    expect(stored.stderr).toMatch(/could not reach/);
    const fromEnv = await runMain(['property', 'value', '--slug', 'a', '--max-retries', '0'], {
      env: { ...env, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's', PROPDATA_BASE_URL: 'http://api.example.com' },
    });
    expect(fromEnv.stderr).toMatch(/refusing plain http to api.example.com/);
    const fromFlag = await runMain(['property', 'value', '--slug', 'a', '--base-url', 'http://10.1.1.1', '--max-retries', '0'], {
      env: { ...env, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's', PROPDATA_BASE_URL: 'http://api.example.com' },
    });
    expect(fromFlag.stderr).toMatch(/refusing plain http to 10.1.1.1/);
  });
});

describe('propdata config: other spellings and stdin', () => {
  it('reads the secret from stdin for "-" and takes base_url for base-url', async () => {
    const env = { PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-config-')) };
    expect((await runMain(['config', 'set', 'secret', '-'], { env, stdin: 'from-stdin-5678\n' })).code).toBe(0);
    const { openConfigStore } = await import('../../src/config/store.js');
    expect(openConfigStore(env).get('secret')).toBe('from-stdin-5678');
    expect((await runMain(['config', 'set', 'secret', '-'], { env, stdin: '' })).code).toBe(2);
    expect((await runMain(['config', 'set', 'base_url', 'https://api.example.com'], { env })).code).toBe(0);
    const got = await runMain(['config', 'get', 'base_url'], { env });
    expect(got.code).toBe(0);
    expect(got.stdout).toBe('https://api.example.com\n');
  });
});

describe('an empty environment variable', () => {
  const sandbox = sandboxPerTest();

  it('counts as unset: PROPDATA_API_KEY= leaves the key to HC_API_KEY, as the reference says', async () => {
    const env = await sandbox.start();
    const result = await runMain(['property', 'value', '--address', '43 Valmonte Plaza', '--zipcode', '90274', '--json'], {
      env: {
        PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-config-')),
        PROPDATA_BASE_URL: env.PROPDATA_BASE_URL,
        PROPDATA_API_KEY: '',
        PROPDATA_API_SECRET: '',
        HC_API_KEY: env.PROPDATA_API_KEY,
        HC_API_SECRET: env.PROPDATA_API_SECRET,
      },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(1);
  });
});
