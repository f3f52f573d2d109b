import { ConfigError } from '../errors/index.js';

/** The variables, lower case first as curl and undici read them: the first set one of a row counts. */
const HTTP_PROXY = ['http_proxy', 'HTTP_PROXY'];
const HTTPS_PROXY = ['https_proxy', 'HTTPS_PROXY'];
const NO_PROXY = ['no_proxy', 'NO_PROXY'];

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

function firstSet(env: Readonly<Record<string, string | undefined>>, names: readonly string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return [name, value];
  }
  return undefined;
}

/**
 * Whether NO_PROXY exempts `url`, as undici's EnvHttpProxyAgent reads it: entries split by
 * commas or spaces, `*` for every host, `host` or `host:port`, a leading `.` or `*.` ignored; an
 * entry matches its host and the host's subdomains, on any port unless it names one.
 */
function exempted(url: URL, noProxy: string): boolean {
  if (noProxy.trim() === '*') return true;
  const host = url.hostname.toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  return noProxy
    .split(/[,\s]+/)
    .filter((entry) => entry !== '')
    .some((entry) => {
      const withPort = /^(.+):(\d+)$/.exec(entry);
      const name = (withPort ? withPort[1]! : entry).replace(/^\*?\./, '').toLowerCase();
      if (withPort && Number(withPort[2]) !== port) return false;
      return host === name || host.endsWith(`.${name}`);
    });
}

/**
 * The forward proxy that requests to `origin` go through, as the environment says (HTTPS_PROXY
 * for an https origin, falling back to HTTP_PROXY, as undici does; HTTP_PROXY for http), unless
 * NO_PROXY exempts it; undefined: straight to it. A proxy without a scheme is http's, as curl
 * takes it. One rule for both transports (a batch's pool and a one-off's connection).
 */
export function proxyFor(origin: URL, env: Readonly<Record<string, string | undefined>>): URL | undefined {
  const set = origin.protocol === 'https:' ? (firstSet(env, HTTPS_PROXY) ?? firstSet(env, HTTP_PROXY)) : firstSet(env, HTTP_PROXY);
  if (!set) return undefined;
  if (exempted(origin, firstSet(env, NO_PROXY)?.[1] ?? '')) return undefined;
  const [name, value] = set;
  try {
    const proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
    if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') throw new Error(proxy.protocol);
    return proxy;
  } catch {
    // The value may carry the proxy's password: the message names the variable, not what it holds.
    throw new ConfigError(`${name} is not a proxy URL such as http://proxy.example.com:3128`);
  }
}

/** A proxy as it may be shown: its scheme, host and port, never a user or password. */
export const proxyLabel = (proxy: URL): string => `${proxy.protocol}//${proxy.host}`;
