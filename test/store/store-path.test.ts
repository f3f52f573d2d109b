import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultStorePath, storePathFrom } from '../../src/store/store-path.js';

describe('where the store lives', () => {
  const home = '/home/ann';

  it('is $PROPDATA_HOME/propdata.db when set, on any platform', () => {
    expect(defaultStorePath({ PROPDATA_HOME: '/data/pd' }, 'linux', home)).toBe(join('/data/pd', 'propdata.db'));
    expect(defaultStorePath({ PROPDATA_HOME: '/data/pd' }, 'darwin', home)).toBe(join('/data/pd', 'propdata.db'));
  });

  it('defaults to the platform data directory', () => {
    expect(defaultStorePath({}, 'linux', home)).toBe(join(home, '.local', 'share', 'propdata', 'propdata.db'));
    expect(defaultStorePath({ XDG_DATA_HOME: '/xdg' }, 'linux', home)).toBe(join('/xdg', 'propdata', 'propdata.db'));
    // The XDG spec: a relative XDG_DATA_HOME is invalid and ignored.
    expect(defaultStorePath({ XDG_DATA_HOME: 'xdg' }, 'linux', home)).toBe(join(home, '.local', 'share', 'propdata', 'propdata.db'));
    expect(defaultStorePath({}, 'darwin', home)).toBe(join(home, 'Library', 'Application Support', 'propdata', 'propdata.db'));
    expect(defaultStorePath({ LOCALAPPDATA: '/c/Users/ann/AppData/Local' }, 'win32', home)).toBe(
      join('/c/Users/ann/AppData/Local', 'propdata', 'propdata.db'),
    );
    expect(defaultStorePath({}, 'win32', home)).toBe(join(home, 'AppData', 'Local', 'propdata', 'propdata.db'));
  });

  it('follows --store and --no-store', () => {
    const env = { PROPDATA_HOME: '/data/pd', PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-config-')) };
    expect(storePathFrom(undefined, env)).toBe(join('/data/pd', 'propdata.db'));
    expect(storePathFrom('answers.db', env)).toBe(resolve('answers.db'));
    expect(storePathFrom(false, env)).toBeUndefined();
  });

  it("takes a database URL as given, and the stored config's store when no flag (nor PROPDATA_STORE) names one", () => {
    const config = mkdtempSync(join(tmpdir(), 'propdata-config-'));
    const env = { PROPDATA_HOME: '/data/pd', PROPDATA_CONFIG_DIR: config };
    const url = 'postgres://jobs@db.internal:5432/enrichment?sslmode=verify-full';
    expect(storePathFrom(url, env)).toBe(url);
    expect(storePathFrom('postgresql://db.internal/enrichment', env)).toBe('postgresql://db.internal/enrichment');
    writeFileSync(join(config, 'config.json'), JSON.stringify({ store: url }));
    expect(storePathFrom(undefined, env)).toBe(url);
    expect(storePathFrom('answers.db', env)).toBe(resolve('answers.db'));
    expect(storePathFrom(false, env)).toBeUndefined();
  });
});
