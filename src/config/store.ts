import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Conf from 'conf';
import { ConfigError } from '../errors/index.js';
import { SETTINGS, type SettingName } from './settings.js';

export interface ConfigStore {
  get(name: SettingName): string | undefined;
  set(name: SettingName, value: string): void;
  delete(name: SettingName): void;
  readonly path: string;
}

type Settings = Partial<Record<SettingName, string>>;

/** The file's settings, or why it holds none that can be used. An empty file holds none. */
function parseSettings(text: string): { settings: Settings; problem?: string } {
  if (text.trim() === '') return { settings: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { settings: {}, problem: `it is not valid JSON (${(error as Error).message})` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { settings: {}, problem: 'it is not a JSON object' };
  const bad = SETTINGS.find(({ name }) => name in parsed && typeof (parsed as Record<string, unknown>)[name] !== 'string');
  return bad ? { settings: {}, problem: `the value of "${bad.name}" is not a string` } : { settings: parsed as Settings };
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
    if (problem !== undefined) {
      throw new ConfigError(
        `cannot use the stored config ${conf.path}: ${problem}; fix the file, or delete it and store the settings again with "propdata config set"`,
        'E_CONFIG_UNREADABLE',
      );
    }
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
