import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openConfigStore } from '../../src/config/store.js';
import { ConfigError } from '../../src/errors/index.js';
import { runMain } from '../helpers/run-main.js';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'propdata-store-')), 'nested', 'propdata');
const mode = (path: string) => statSync(path).mode & 0o777;

describe('the config directory', () => {
  // Read once and put back after each test; the race the deprecation warns of needs threads, which tests do not use.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const umask = process.umask();
  const xdg = process.env.XDG_CONFIG_HOME;
  afterEach(() => {
    process.umask(umask);
    if (xdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = xdg;
  });

  it('is created 0700 and the file 0600, even under umask 000', () => {
    process.umask(0);
    const dir = fresh();
    const store = openConfigStore({ PROPDATA_CONFIG_DIR: dir });
    store.set('secret', 'very-secret');
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
  });

  it.runIf(process.platform === 'linux')('is 0700 in its default place too', () => {
    process.umask(0);
    process.env.XDG_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'propdata-xdg-'));
    const store = openConfigStore({});
    store.set('key', 'k');
    expect(store.path).toBe(join(process.env.XDG_CONFIG_HOME, 'propdata', 'config.json'));
    expect(mode(join(process.env.XDG_CONFIG_HOME, 'propdata'))).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
  });
});

describe('a config file that cannot be read', () => {
  function corrupt(text: string) {
    const dir = fresh();
    const path = join(openConfigStore({ PROPDATA_CONFIG_DIR: dir }).path);
    writeFileSync(path, text);
    return { dir, path };
  }

  it('gives a ConfigError naming the file and the way out, on read and on write, and is left as it was', () => {
    for (const text of ['{ key: "k" ', '[1, 2]', 'null', '{"secret": 5}']) {
      const { dir, path } = corrupt(text);
      const store = openConfigStore({ PROPDATA_CONFIG_DIR: dir });
      expect(store.path).toBe(path);
      for (const use of [() => store.get('key'), () => store.set('key', 'k'), () => store.delete('key')]) {
        let error: unknown;
        try {
          use();
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).code).toBe('E_CONFIG_UNREADABLE');
        expect((error as ConfigError).message).toContain(path);
        expect((error as ConfigError).message).toMatch(/fix the file, or delete it/);
      }
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });

  it('is an empty config when the file is empty', () => {
    const { dir } = corrupt('');
    expect(openConfigStore({ PROPDATA_CONFIG_DIR: dir }).get('key')).toBeUndefined();
  });

  it('stops a command with one line and exit 2; `config path` still says where it is', async () => {
    const { dir, path } = corrupt('{ key: "k" ');
    const env = { PROPDATA_CONFIG_DIR: dir };
    const query = await runMain(['property', 'value', '--slug', 'a'], { env });
    expect(query.code).toBe(2);
    expect(query.stderr).not.toMatch(/unexpected error/);
    expect(query.stderr).toContain(path);
    expect(query.stderr.trim().split('\n')).toHaveLength(1);
    const where = await runMain(['config', 'path'], { env });
    expect(where.code).toBe(0);
    expect(where.stdout.trim()).toBe(path);
    expect((await runMain(['config', 'set', 'key', 'k'], { env })).code).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('{ key: "k" ');
  });
});
