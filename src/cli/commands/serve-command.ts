import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Command } from 'commander';
import { storeForMessages } from '../../config/database-url.js';
import { UsageError } from '../../errors/index.js';
import { GATEWAY_DEFAULTS } from '../../gateway/defaults.js';
import type { GatewayRequestLog } from '../../gateway/server.js';
import { newSecret } from '../../gateway/key-secrets.js';
import { trustedProxiesProblem } from '../../gateway/client-address.js';
import { listeningProblem } from '../../gateway/listen-safety.js';
import { addressesForClients, isWildcardHost } from '../../gateway/public-address.js';
import type { OptionValues } from '../../options/option-spec.js';
import { SYSTEM_CLOCK } from '../../throttle/clock.js';
import { addOptions } from '../add-options.js';
import { resolveRunDefaults } from '../run-defaults.js';
import type { CommandContext } from './command-context.js';
import { durationText } from '../options.js';
import { SERVE_OPTIONS } from './serve-options.js';

type ServeOptions = OptionValues<typeof SERVE_OPTIONS>;

/** `12:00:01 alice 10.0.0.7 POST /v2/property/value -> 200 items=100 from-store=40 (35 ms)`: never a credential, never an item. */
function requestLine(entry: GatewayRequestLog): string {
  const time = new Date(entry.at).toISOString().slice(11, 19);
  const items = entry.items === undefined ? '' : ` items=${entry.items} from-store=${entry.fromStore ?? 0}`;
  const cut = entry.cut === undefined ? '' : ` ${entry.cut}`;
  return `${time} ${entry.key ?? '-'} ${entry.address} ${entry.method} ${entry.path} -> ${entry.status}${items}${cut} (${Math.round(entry.elapsedMs)} ms)`;
}

/** The same as one JSON object a line (--log-format json), for a log shipper: the time in full, the duration in ms. */
function requestJson(entry: GatewayRequestLog): string {
  const { at, elapsedMs, ...rest } = entry;
  return JSON.stringify({ time: new Date(at).toISOString(), ...rest, elapsedMs: Math.round(elapsedMs * 10) / 10 });
}

/** Why a certificate or key the TLS layer refuses cannot be used, naming the flag: OpenSSL's own words say neither. */
function tlsProblem(cert: Buffer, key: Buffer, paths: { cert: string; key: string }): string | undefined {
  const opensslReason = (error: unknown) => (error instanceof Error ? error.message.replace(/^error:[0-9A-F]+:/, '') : String(error));
  try {
    createSecureContext({ cert });
  } catch (error) {
    return `--tls-cert ${paths.cert} is not a PEM certificate (${opensslReason(error)})`;
  }
  try {
    createSecureContext({ key });
  } catch (error) {
    return `--tls-key ${paths.key} is not a PEM private key, or one protected by a passphrase (${opensslReason(error)})`;
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    return `--tls-key ${paths.key} is not the private key of --tls-cert ${paths.cert} (${opensslReason(error)})`;
  }
  return undefined;
}

/** The certificate and key, read and checked now: a file that cannot be read or used is the user's to fix, named. */
function readTls(options: ServeOptions): { cert: Buffer; key: Buffer } | undefined {
  const problem = listeningProblem(options.host, { cert: options.tlsCert, key: options.tlsKey }, Boolean(options.insecurePlainHttp));
  if (problem) throw new UsageError(`serve: ${problem}`, 'E_SERVE_INSECURE');
  if (options.tlsCert === undefined || options.tlsKey === undefined) return undefined;
  const read = (flag: string, path: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new UsageError(`serve: cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, 'E_SERVE_TLS');
    }
  };
  const pair = { cert: read('--tls-cert', options.tlsCert), key: read('--tls-key', options.tlsKey) };
  const unusable = tlsProblem(pair.cert, pair.key, { cert: options.tlsCert, key: options.tlsKey });
  if (unusable) throw new UsageError(`serve: ${unusable}`, 'E_SERVE_TLS');
  return pair;
}

/** Where clients reach it: the URL it listens on, or with --host 0.0.0.0 (or ::), this machine's name and addresses. */
function listeningLine(url: string, host: string, tls: boolean): string {
  if (!isWildcardHost(host)) return `propdata serve listening on ${url}`;
  const port = Number(new URL(url).port);
  const { byName, byAddress } = addressesForClients(tls ? 'https' : 'http', port);
  const also = byAddress.length > 0 ? ` (or ${byAddress.join(', ')})` : '';
  return `propdata serve listening on every interface, port ${port}: clients use ${byName}${also}`;
}

export function registerServeCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('serve')
    .usage('[--port N] [--host H --tls-cert F --tls-key F] [--admin-key K] [--store S] [options]')
    .description(
      "a gateway to the service for every client of the account: the service's API with keys of its own, one pacer, the store's answers, spend per key, a status page",
    )
    .addHelpText(
      'after',
      [
        '',
        'Clients change only their base URL and credentials (a key from `propdata keys add`).',
        'The status page is at the base URL (user admin, password the admin key).',
        '',
        'Examples:',
        '  $ propdata serve --sandbox',
        '  $ propdata serve --host 0.0.0.0 --port 8443 --tls-cert gw.pem --tls-key gw.key --store postgres://propdata@db/jobs',
      ].join('\n'),
    );
  addOptions(command, SERVE_OPTIONS, context.io.env);
  command.action(async (options: ServeOptions) => {
    await serve(options, context);
  });
}

async function serve(options: ServeOptions, context: CommandContext): Promise<void> {
  const { io, messages } = context;
  const tls = readTls(options);
  const proxies = options.trustProxy ?? [];
  const untrusted = trustedProxiesProblem(proxies);
  if (untrusted) throw new UsageError(`serve: ${untrusted}`, 'E_SERVE_TRUST_PROXY');
  const defaults = await resolveRunDefaults(options, async () => (await import('../../config/config-file.js')).readConfigFile(io.env));
  const { storePathFrom } = await import('../../store/store-path.js');
  const { openGateway } = await import('../../gateway/open-gateway.js');
  const storePath = storePathFrom(options.store, io.env);
  const adminKey = options.adminKey ?? newSecret();
  const out = (line: string) => void io.stdout.write(`${messages.redact(line)}\n`);
  const maxAgeMs = defaults.maxAgeMs ?? GATEWAY_DEFAULTS.maxAgeMs;
  const maxWaitMs = options.maxWait ?? GATEWAY_DEFAULTS.maxWaitMs;
  const gateway = await openGateway({
    connection: options,
    env: io.env,
    log: messages,
    storePath,
    host: options.host,
    port: options.port,
    ...(tls ? { tls } : {}),
    trustProxy: proxies,
    adminKey,
    maxAgeMs,
    maxWaitMs,
    maxCostMonth: defaults.maxCostMonth,
    ratePerMinute: options.rate,
    maxRetries: options.maxRetries,
    concurrency: options.concurrency,
    // A gateway on a port of the system's choosing is one of a kind: its process tells it apart.
    runLabel: `serve ${options.host}:${options.port}${options.port === 0 ? ` pid ${process.pid}` : ''}`,
    clock: io.clock ?? SYSTEM_CLOCK,
    ...(options.quiet
      ? {}
      : { onRequest: (entry: GatewayRequestLog) => out(options.logFormat === 'json' ? requestJson(entry) : requestLine(entry)) }),
    onProblem: (message) => messages.error(`propdata serve: ${message}`),
  });
  try {
    const live = (await gateway.store.keys.list()).filter((key) => key.revoked === undefined).length;
    const service = gateway.service.connection.baseUrl.origin;
    out(
      `${listeningLine(gateway.url, options.host, tls !== undefined)}, for the service at ${service}${options.sandbox ? ' (the built-in sandbox: synthetic data)' : ''}`,
    );
    out(`  status page: ${gateway.url}/ (user admin, password ${options.adminKey === undefined ? adminKey : 'the --admin-key'})`);
    out(`  operators:   ${gateway.url}/healthz, /readyz (no key), /metrics (Prometheus text; user admin, the same password)`);
    out(`  keys:        ${live} live (propdata keys add <name>)`);
    out(
      `  store:       ${storeForMessages(storePath)}: answers younger than ${durationText(maxAgeMs)} come from it (--max-age; X-Propdata-Max-Age)`,
    );
    out(`  a request waits at most ${durationText(maxWaitMs)} for the rate limit, then gets a 429 (--max-wait; X-Propdata-Max-Wait)`);
    out('Stop it with Ctrl-C or SIGTERM: requests in flight finish first.');
    await untilStopped(context);
    out('propdata serve: stopping: finishing the requests in flight');
  } finally {
    await gateway.close();
  }
  out('propdata serve stopped');
}

function untilStopped(context: CommandContext): Promise<void> {
  return new Promise<void>((resolve) => {
    const signal = context.io.signal;
    if (!signal || signal.aborted) {
      resolve();
      return;
    }
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
