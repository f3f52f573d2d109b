import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Conf from 'conf';
import { parseSettings, unusableConfig, type Settings } from './config-file.js';
import type { SettingName } from './settings.js';

export interface ConfigStore {
  get(name: SettingName): string | undefined;
  set(name: SettingName, value: string): void;
  delete(name: SettingName): void;
  readonly path: string;
}

/**
 * The stored configuration, a JSON file of mode 0600 (it holds the secret) in a directory of mode
 * 0700. `PROPDATA_CONFIG_DIR` moves it, which is how tests keep away from the real one.
 */
export function openConfigStore(env: Record<string, string | undefined>): ConfigStore {
  const dir = env.PROPDATA_CONFIG_DIR;
  // conf creates the directory with the umask's mode (0755, 0777 under umask 000): one we create
  // is made 0700 first. An existing PROPDATA_CONFIG_DIR is the user's choice and keeps its mode.
  if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  // conf reads the file as it opens and would throw JSON.parse's bare "Expected property name";
  // the problem is kept instead and reported, with the file and the way out, by any read or write.
  // Opening still works, so that `propdata config path` can say where the file is.
  let problem: string | undefined;
  const conf = new Conf<Settings>({
    projectName: 'propdata',
    projectSuffix: '',
    configFileMode: 0o600,
    deserialize: (text) => {
      const parsed = parseSettings(text);
      problem = parsed.problem;
      return parsed.settings;
    },
    ...(dir ? { cwd: dir } : {}),
  });
  // The default directory is propdata's own: tightened whatever mode conf gave it.
  if (!dir) chmodSync(dirname(conf.path), 0o700);
  const read = (): Settings => {
    const settings = conf.store;
    if (problem !== undefined) throw unusableConfig(conf.path, problem);
    return settings;
  };
  return {
    get: (name) => read()[name],
    set: (name, value) => {
      read();
      conf.set(name, value);
    },
    delete: (name) => {
      read();
      conf.delete(name);
    },
    path: conf.path,
  };
}
