import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { parseBaseUrl, resolveConnection } from '../../src/config/connection.js';
import { openConfigStore } from '../../src/config/store.js';
import { PropdataError } from '../../src/errors/index.js';

function storeWith(values: Record<string, string>) {
  const env = { PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-config-')) };
  const store = openConfigStore(env);
  for (const [name, value] of Object.entries(values)) store.set(name as 'key', value);
  return store;
}

describe('connection settings', () => {
  const stored = { key: 'stored-key', secret: 'stored-secret', 'base-url': 'https://stored.example.com' };
  const env = { PROPDATA_API_KEY: 'env-key', PROPDATA_API_SECRET: 'env-secret', PROPDATA_BASE_URL: 'https://env.example.com' };

  it('takes flags over environment over the stored config, setting by setting', async () => {
    const store = storeWith(stored);
    await expect(resolveConnection({ key: 'flag-key' }, env, () => Promise.resolve(store))).resolves.toMatchObject({
      key: 'flag-key',
      secret: 'env-secret',
    });
    await expect(resolveConnection({}, { PROPDATA_API_SECRET: 'env-secret' }, () => Promise.resolve(store))).resolves.toMatchObject({
      key: 'stored-key',
      secret: 'env-secret',
    });
    expect((await resolveConnection({}, {}, () => Promise.resolve(store))).baseUrl.href).toBe('https://stored.example.com/');
  });

  it('reads HC_* and then HOUSECANARY_* after PROPDATA_*, before the stored config', async () => {
    const store = storeWith(stored);
    const others = {
      HC_API_KEY: 'hc-key',
      HC_API_SECRET: 'hc-secret',
      HOUSECANARY_API_KEY: 'hcy-key',
      HOUSECANARY_API_SECRET: 'hcy-secret',
    };
    await expect(resolveConnection({}, others, () => Promise.resolve(store))).resolves.toMatchObject({
      key: 'hc-key',
      secret: 'hc-secret',
    });
    await expect(
      resolveConnection({}, { ...others, HC_API_KEY: undefined, HC_API_SECRET: '' }, () => Promise.resolve(store)),
    ).resolves.toMatchObject({
      key: 'hcy-key',
      secret: 'hcy-secret',
    });
    await expect(resolveConnection({}, { ...others, PROPDATA_API_KEY: 'env-key' }, () => Promise.resolve(store))).resolves.toMatchObject({
      key: 'env-key',
      secret: 'hc-secret',
    });
    await expect(resolveConnection({ secret: 'flag-secret' }, others, () => Promise.resolve(store))).resolves.toMatchObject({
      secret: 'flag-secret',
    });
    // An empty flag is as good as none: the next source has its say.
    await expect(resolveConnection({ key: '', secret: '' }, others, () => Promise.resolve(store))).resolves.toMatchObject({
      key: 'hc-key',
      secret: 'hc-secret',
    });
  });

  it('says what is missing and how to provide it', async () => {
    const store = storeWith({});
    await expect(resolveConnection({ key: 'k' }, {}, () => Promise.resolve(store))).rejects.toThrow(
      /no base URL, API secret configured.*--sandbox/,
    );
  });

  it('stores the config in a file only the owner can read', () => {
    const store = storeWith({ secret: 's3cr3t-value' });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('accepts a base URL with the version in it, and refuses one with credentials in it', () => {
    expect(parseBaseUrl('https://api.example.com/v2/').pathname).toBe('/');
    expect(parseBaseUrl('https://api.example.com/data/v2').pathname).toBe('/data');
    expect(() => parseBaseUrl('https://key:secret@api.example.com')).toThrow(/not in the base URL/);
  });

  it('refuses plain http except to this machine', () => {
    expect(() => parseBaseUrl('http://api.example.com')).toThrow(/refusing plain http/);
    expect(parseBaseUrl('http://127.0.0.1:8787').host).toBe('127.0.0.1:8787');
    expect(parseBaseUrl('http://localhost:1/').host).toBe('localhost:1');
    try {
      parseBaseUrl('http://10.0.0.5');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PropdataError);
      expect(exitCodeFor(error)).toBe(2);
    }
  });
});
