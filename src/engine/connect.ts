import { resolveConnection, type Connection } from '../config/connection.js';
import { proxyFor, proxyLabel } from '../config/proxy.js';
import type { RequestLogEntry, Service as Sender } from '../client/service-client.js';
import type { Transport } from '../client/transport.js';
import type { EngineLog } from './engine-log.js';
import type { RateWindow } from '../sandbox/options.js';
import { VERSION } from './version.js';

export interface ConnectionOptions {
  key?: string;
  secret?: string;
  secretFile?: string;
  baseUrl?: string;
  sandbox?: boolean;
  /** --sandbox-rate-limit and --sandbox-credit: the in-process sandbox's windows and credit. */
  sandboxRateLimit?: RateWindow[];
  sandboxCredit?: number;
  timeout: number;
  /** false (--no-proxy-env, the library's `proxy: false`): HTTPS_PROXY, HTTP_PROXY and NO_PROXY are not read, the service is reached directly. */
  proxyEnv?: boolean;
}

export interface Service {
  /** Sends each request once (a ServiceClient; a library call's wraps it to give its requests its own deadline). */
  client: Sender;
  connection: Connection;
  close(): Promise<void>;
}

/** A transport made at its first exchange (a run that sends nothing never loads it); closing one never used does nothing. */
function loadedOnUse(make: () => Promise<Transport>): Transport {
  let made: Promise<Transport> | undefined;
  return {
    exchange: async (request, limits) => (await (made ??= make())).exchange(request, limits),
    close: async () => {
      if (made) await (await made).close();
    },
  };
}

/** Lines for --verbose: what was asked and answered, never the Authorization header. */
function logRequest(log: EngineLog, entry: RequestLogEntry): void {
  const rate = Object.entries(entry.headers)
    .filter(([name]) => name.startsWith('x-ratelimit-'))
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
  log.debug(
    `${entry.method} ${entry.path} items=${entry.items} -> ${entry.status} in ${Math.round(entry.elapsedMs)} ms${rate ? ` [${rate}]` : ''}`,
  );
}

/**
 * The service to talk to: the configured one, or the built-in sandbox started for this command.
 * `connections`: a batch's concurrency; without it, a one-off's single request at a time.
 */
export async function connect(
  options: ConnectionOptions,
  { env, log }: { env: Record<string, string | undefined>; log: EngineLog },
  connections?: number,
): Promise<Service> {
  let connection: Connection;
  let stopSandbox: (() => Promise<void>) | undefined;
  if (options.sandbox) {
    const { startSandbox, sandboxOptionsFrom } = await import('../sandbox/index.js');
    // The in-process sandbox keeps the service's defaults but its windows and credit (a newcomer's
    // larger file would run out of the built-in credit); `propdata sandbox` exposes every tuning flag.
    const settings = sandboxOptionsFrom({ rateLimit: options.sandboxRateLimit, credit: options.sandboxCredit });
    const sandbox = await startSandbox(settings);
    const { describeSandbox, resolveOptions } = await import('../sandbox/options.js');
    const [limits, credit] = describeSandbox(resolveOptions(settings)).map((line) => line.replace(/:\s+/, ' '));
    log.info(
      `propdata: using the built-in sandbox at ${sandbox.url} (${limits}; ${credit}; --sandbox-rate-limit, --sandbox-credit): the data is synthetic, not real property data`,
    );
    connection = { baseUrl: new URL(sandbox.url), key: sandbox.key, secret: sandbox.secret };
    stopSandbox = () => sandbox.close();
  } else {
    connection = await resolveConnection(options, env, async () => (await import('../config/config-file.js')).readConfigFile(env));
  }
  // The sandbox's pair is printed by `propdata sandbox` and is no secret; redacting it would turn
  // every "--sandbox" in a message into "--****".
  if (!options.sandbox) log.addCredentials(connection.key, connection.secret);
  const { ServiceClient } = await import('../client/service-client.js');
  const { DEFAULT_TIMEOUTS } = await import('../policy/policy.js');
  const timeouts = { ...DEFAULT_TIMEOUTS, responseMs: options.timeout * 1000 };
  const origin = connection.baseUrl.origin;
  // The in-process sandbox is this process's own: no proxy stands between them.
  const proxy = options.sandbox || options.proxyEnv === false ? undefined : proxyFor(connection.baseUrl, env);
  if (proxy) log.debug(`propdata: reaching ${origin} through the proxy ${proxyLabel(proxy)} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)`);
  // A batch keeps its sockets alive in undici's pool, loaded only once it sends (a rerun answered
  // from the store sends nothing); a one-off's request goes over node's own http, which loads in
  // no time (BENCHMARKS.md, start-up).
  const transport =
    connections === undefined
      ? await (await import('../client/one-off-transport.js')).createOneOffTransport(origin, timeouts, undefined, proxy)
      : loadedOnUse(async () =>
          (await import('../client/pool-transport.js')).createPoolTransport(origin, connections, timeouts, undefined, proxy),
        );
  const client = new ServiceClient(connection, transport, {
    userAgent: `propdata/${VERSION}`,
    timeouts,
    onRequest: (entry) => logRequest(log, entry),
    publicCredentials: Boolean(options.sandbox),
    ...(proxy ? { proxy: proxyLabel(proxy) } : {}),
  });
  return {
    client,
    connection,
    close: async () => {
      await client.close();
      await stopSandbox?.();
    },
  };
}
