import Conf from 'conf';
import type { SettingName } from './settings.js';

export interface ConfigStore {
  get(name: SettingName): string | undefined;
  set(name: SettingName, value: string): void;
  delete(name: SettingName): void;
  readonly path: string;
}

/**
 * The stored configuration, a JSON file of mode 0600 (it holds the secret). `PROPDATA_CONFIG_DIR`
 * moves it, which is how tests keep away from the real one.
 */
export function openConfigStore(env: Record<string, string | undefined>): ConfigStore {
  const dir = env.PROPDATA_CONFIG_DIR;
  const conf = new Conf<Partial<Record<SettingName, string>>>({
    projectName: 'propdata',
    projectSuffix: '',
    configFileMode: 0o600,
    ...(dir ? { cwd: dir } : {}),
  });
  return {
    get: (name) => conf.get(name),
    set: (name, value) => conf.set(name, value),
    delete: (name) => conf.delete(name),
    path: conf.path,
  };
}
