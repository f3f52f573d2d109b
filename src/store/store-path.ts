import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { readConfigFile } from '../config/config-file.js';
import { isDatabaseUrl, withoutPassword } from '../config/database-url.js';
import { pendingDir } from './pending.js';

type Env = Record<string, string | undefined>;

/** An absolute directory from the environment; a relative one is ignored, as the XDG spec asks. */
function absolute(value: string | undefined): string | undefined {
  return value && isAbsolute(value) ? value : undefined;
}

/** Where propdata keeps its data when PROPDATA_HOME does not say: the platform's usual place. */
function platformDataDir(env: Env, platform: NodeJS.Platform, home: string): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'propdata');
  if (platform === 'win32') return join(absolute(env.LOCALAPPDATA) ?? join(home, 'AppData', 'Local'), 'propdata');
  return join(absolute(env.XDG_DATA_HOME) ?? join(home, '.local', 'share'), 'propdata');
}

/** `$PROPDATA_HOME`, which defaults to the platform's data directory. */
function dataDir(env: Env, platform: NodeJS.Platform, home: string): string {
  return env.PROPDATA_HOME ? resolve(env.PROPDATA_HOME) : platformDataDir(env, platform, home);
}

/** `$PROPDATA_HOME/propdata.db`; PROPDATA_HOME defaults to the platform's data directory. */
export function defaultStorePath(env: Env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  return join(dataDir(env, platform, home), 'propdata.db');
}

/**
 * Where this machine keeps what a store has not taken yet (store/pending.ts): beside a file, or, for
 * a database every machine shares, in `$PROPDATA_HOME/journal/`, one folder per database and schema
 * (named by a digest of its URL without the password: the folder's name holds no secret).
 */
export function journalDirFor(location: string, env: Env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (!isDatabaseUrl(location)) return pendingDir(location);
  const digest = createHash('sha256').update(withoutPassword(location)).digest('hex').slice(0, 16);
  return join(dataDir(env, platform, home), 'journal', digest);
}

/**
 * The store a command uses: `--store FILE|URL` (PROPDATA_STORE comes with the flag), none with
 * `--no-store` (commander gives false), else the stored config's `store`, else the default file. A
 * database URL is kept as given; a file's path is made absolute.
 */
export function storePathFrom(store: string | undefined, env: Env): string;
export function storePathFrom(store: string | false | undefined, env: Env): string | undefined;
export function storePathFrom(store: string | false | undefined, env: Env): string | undefined {
  if (store === false) return undefined;
  const chosen = store ?? (readConfigFile(env).get('store') || undefined);
  if (chosen === undefined) return defaultStorePath(env);
  return isDatabaseUrl(chosen) ? chosen : resolve(chosen);
}
