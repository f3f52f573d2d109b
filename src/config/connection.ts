import { ConfigError } from '../errors/index.js';
import { CONNECTION_SETTINGS, type ConnectionSettingName } from './settings.js';
import type { ConfigReader } from './config-file.js';
import { readSecretFile } from './secret-file.js';

export interface Connection {
  baseUrl: URL;
  key: string;
  secret: string;
}

/** `--key`, `--secret` (or `--secret-file`, whose file holds the secret) and `--base-url`. */
export type ConnectionFlags = Partial<Record<'key' | 'secret' | 'secretFile' | 'baseUrl', string | undefined>>;

/** The secret the flags give: `--secret`, or the content of `--secret-file`; never both. */
function secretFlag(flags: ConnectionFlags): string | undefined {
  if (flags.secretFile === undefined) return flags.secret;
  if (flags.secret !== undefined && flags.secret !== '') {
    throw new ConfigError('give the API secret once: --secret or --secret-file, not both', 'E_SECRET_FILE');
  }
  return readSecretFile(flags.secretFile);
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1)$/i;

/**
 * Whether a host name or address (an IPv6 one with or without its brackets) is this machine's
 * loopback: traffic that never leaves it. IPv4 is read as the system reads it (`127.1`, as
 * inet_aton does), and as IPv6 writes it (`::ffff:127.0.0.1`).
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').replace(/^::ffff:(?=\d+\.)/i, '');
  if (LOOPBACK.test(bare)) return true;
  if (!/^[\d.x]+$/i.test(bare)) return false;
  try {
    // The URL parser reads IPv4's short and numeric forms (127.1, 2130706433) as the system does.
    return LOOPBACK.test(new URL(`http://${bare}/`).hostname);
  } catch {
    return false;
  }
}

/**
 * A base URL as a message may show it: anything before an "@" may be a password, and a text that
 * does not parse cannot say where its user info ends, so everything up to the last "@" goes.
 */
function urlForMessage(text: string): string {
  const at = text.lastIndexOf('@');
  if (at < 0) return text;
  const scheme = /^[a-z][a-z\d+.-]*:\/\//i.exec(text)?.[0] ?? '';
  return `${scheme}****@${text.slice(at + 1)}`;
}

/**
 * The service's base address. Credentials travel in every request, so plain http is refused
 * unless the host is this machine (the sandbox, a test server).
 */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`base URL "${urlForMessage(text)}" is not a URL: give it as https://host[/path]`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(
      `refusing plain http to ${url.host}: credentials would travel unencrypted; use https:// (http is allowed only for localhost)`,
      'E_INSECURE_URL',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`base URL must start with https://, got a ${url.protocol} URL`);
  }
  if (url.username || url.password) {
    throw new ConfigError('put the key and secret in --key/--secret or the config, not in the base URL', 'E_CREDENTIALS_IN_URL');
  }
  // The spec shows the version both inside the base URL and in the endpoint path; the endpoint
  // path always carries it here, so a base ending in /v2 or /v3 is read as the bare base.
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v[23]$/, '');
  return url;
}

/**
 * Flags (for the secret, --secret or --secret-file), then environment (PROPDATA_*, then HC_*,
 * then HOUSECANARY_* for the key and secret), then the stored config: the first source that has
 * a value wins, and an empty value is none (an empty `--key ""` or `PROPDATA_API_KEY=` hides no
 * later source). The store is opened only when flags and environment leave a setting open (it
 * loads conf, which costs start-up time a scripted run with environment variables need not pay).
 */
export async function resolveConnection(
  flags: ConnectionFlags,
  env: Record<string, string | undefined>,
  store: () => Promise<ConfigReader>,
): Promise<Connection> {
  let opened: ConfigReader | undefined;
  const lookup = async (name: ConnectionSettingName): Promise<string | undefined> => {
    const setting = CONNECTION_SETTINGS.find((candidate) => candidate.name === name)!;
    const flag = setting.name === 'secret' ? secretFlag(flags) : flags[setting.flag];
    const given = [flag, ...[setting.env, ...setting.otherEnv].map((variable) => env[variable])].find(
      (value) => value !== undefined && value !== '',
    );
    const value = given ?? (opened ??= await store()).get(name);
    return value === '' ? undefined : value;
  };
  const baseUrl = await lookup('base-url');
  const key = await lookup('key');
  const secret = await lookup('secret');
  const missing = [!baseUrl && 'base URL', !key && 'API key', !secret && 'API secret'].filter(Boolean);
  if (missing.length > 0) {
    // The spec names no service address, so there is no default: a reader who set only the key and secret must learn where it comes from.
    const whence = baseUrl ? '' : " (the base URL is the service's address, given with the key and secret by the account's provider)";
    throw new ConfigError(
      `no ${missing.join(', ')} configured${whence}: pass --key/--secret/--base-url, set PROPDATA_API_KEY/PROPDATA_API_SECRET/PROPDATA_BASE_URL, ` +
        'run "propdata config set <name> <value>" (key, secret, base-url), or try it with --sandbox',
      'E_NO_CREDENTIALS',
    );
  }
  return { baseUrl: parseBaseUrl(baseUrl!), key: key!, secret: secret! };
}
