import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFilePath, readConfigFile } from '../../src/config/config-file.js';
import { openConfigStore } from '../../src/config/store.js';

describe('reading the stored config without conf', () => {
  it('finds the very file conf writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-config-'));
    expect(configFilePath({ PROPDATA_CONFIG_DIR: dir })).toBe(openConfigStore({ PROPDATA_CONFIG_DIR: dir }).path);
    // Without PROPDATA_CONFIG_DIR conf goes by the process's own environment.
    expect(configFilePath(process.env)).toBe(openConfigStore({}).path);
  });

  it('reads what conf stored, and names the file when it cannot be used', () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-config-'));
    openConfigStore({ PROPDATA_CONFIG_DIR: dir }).set('key', 'k-123');
    expect(readConfigFile({ PROPDATA_CONFIG_DIR: dir }).get('key')).toBe('k-123');
    expect(readConfigFile({ PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-config-')) }).get('key')).toBeUndefined();
    writeFileSync(join(dir, 'config.json'), '{ key: oops }');
    expect(() => readConfigFile({ PROPDATA_CONFIG_DIR: dir }).get('key')).toThrow(
      new RegExp(`cannot use the stored config ${join(dir, 'config.json')}: it is not valid JSON`),
    );
  });
});
