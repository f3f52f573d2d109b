import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { SETTINGS, type SettingName } from './settings.js';

type Env = Record<string, string | undefined>;

/** What reading the stored config needs: a setting, and where the file is (for messages). */
export interface ConfigReader {
  get(name: SettingName): string | undefined;
  readonly path: string;
}

export type Settings = Partial<Record<SettingName, string>>;

/**
 * The config file's path, as conf works it out (env-paths for the project `propdata`, no
 * suffix), or `$PROPDATA_CONFIG_DIR/config.json`.
 */
// Exported for test/config/config-file.test.ts: the path must be conf's on this platform without writing the user's own config.
export function configFilePath(env: Env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (env.PROPDATA_CONFIG_DIR) return join(env.PROPDATA_CONFIG_DIR, 'config.json');
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'propdata', 'config.json');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'propdata', 'Config', 'config.json');
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(base, 'propdata', 'config.json');
}

/** The file's settings, or why it holds none that can be used. An empty file holds none. */
export function parseSettings(text: string): { settings: Settings; problem?: string } {
  if (text.trim() === '') return { settings: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { settings: {}, problem: `it is not valid JSON (${(error as Error).message})` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { settings: {}, problem: 'it is not a JSON object' };
  const bad = SETTINGS.find(({ name }) => name in parsed && typeof parsed[name as keyof typeof parsed] !== 'string');
  return bad ? { settings: {}, problem: `the value of "${bad.name}" is not a string` } : { settings: parsed };
}

/** The error for a config file that cannot be used, with the file and the way out. */
export function unusableConfig(path: string, problem: string): ConfigError {
  return new ConfigError(
    `cannot use the stored config ${path}: ${problem}; fix the file, or delete it and store the settings again with "propdata config set"`,
    'E_CONFIG_UNREADABLE',
  );
}

/**
 * The stored config for reading: the JSON file read directly. conf, and the atomic-write library
 * under it, install handlers that kill the process on the first SIGTERM or Ctrl-C, which would
 * cut a batch's clean stop short; so only `config set` and `config unset` load conf.
 */
export function readConfigFile(env: Env): ConfigReader {
  const path = configFilePath(env);
  let settings: Settings | undefined;
  const load = (): Settings => {
    if (settings) return settings;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return (settings = {});
      throw unusableConfig(path, (error as Error).message);
    }
    const parsed = parseSettings(text);
    if (parsed.problem !== undefined) throw unusableConfig(path, parsed.problem);
    return (settings = parsed.settings);
  };
  return { get: (name) => load()[name], path };
}
