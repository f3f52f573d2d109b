import { connect as connectTcp } from 'node:net';
import { hostname } from 'node:os';
import { connect, type ConnectionOptions, type Service } from '../engine/connect.js';
import type { EngineLog } from '../engine/engine-log.js';
import { JOB_DEFAULTS } from '../engine/job-defaults.js';
import { openSession, type Session } from '../engine/session.js';
import { storeBackNote, storeLostNote } from '../engine/store-outage-notes.js';
import { GATEWAY_DOOR } from '../policy/policy.js';
import { accountId, accountOf } from '../store/account.js';
import type { Store } from '../store/store-api.js';
import { journalDirFor } from '../store/store-path.js';
import type { GatewaySettings } from './gateway-parts.js';
import { startGateway, type RunningGateway } from './server.js';
import { openUpstream } from './upstream.js';

/** What `propdata serve` (or a test) opens a gateway with: the service, the store, and the gateway's own settings. */
export interface GatewayOptions extends Omit<GatewaySettings, 'store' | 'upstream' | 'account' | 'probeService'> {
  /** How to reach the service: the CLI's credentials flags (the sandbox's too), and the deadline of a response. */
  connection: ConnectionOptions;
  env: Record<string, string | undefined>;
  /** Where the engine says what happens: never a credential. */
  log: EngineLog;
  /** A SQLite file or a postgres:// URL. */
  storePath: string;
  /** Components a minute until the service states its windows. */
  ratePerMinute: number;
  maxRetries: number;
  /** Requests to the service in flight at once. */
  concurrency: number;
  /** What ran it, for its name in the spend log. */
  runLabel: string;
}

export interface OpenGateway extends RunningGateway {
  /** The service it reaches, and as which account. */
  service: Service;
  account: string;
  store: Store;
  /** Stops taking requests, lets those in flight finish, and closes the session (its store) and the connections. */
  close(graceMs?: number): Promise<void>;
}

/** The service connected, the gateway's session on it (its store, its pacer, its run), the upstream on the session, and the server listening. */
export async function openGateway(options: GatewayOptions): Promise<OpenGateway> {
  const opened: { service?: Service; session?: Session } = {};
  const closeAll = async () => {
    try {
      await opened.session?.close();
    } finally {
      await opened.service?.close();
    }
  };
  try {
    const sandbox = Boolean(options.connection.sandbox);
    const service = (opened.service = await connect(options.connection, { env: options.env, log: options.log }, options.concurrency));
    const account = accountOf(service.connection, sandbox);
    const session = (opened.session = await openSession({
      service,
      store: {
        path: options.storePath,
        account,
        // The built-in sandbox is one account whatever its port, but each one has windows of its own.
        ...(sandbox ? { pacingAccount: accountId(service.connection.baseUrl, service.connection.key) } : {}),
        runLabel: options.runLabel,
        // The gateway's claims are its own, whatever its process: the next gateway here takes them over.
        claimant: `${hostname()} ${options.runLabel}`,
        journal: journalDirFor(options.storePath, options.env),
        outageWaitMs: JOB_DEFAULTS.storeWaitMs,
      },
      clock: options.clock,
      ratePerMinute: options.ratePerMinute,
      maxWaitMs: options.maxWaitMs,
      // An operator's log says why requests pause, and when they go on.
      storeLost: (reason, waitMs) => options.onProblem?.(storeLostNote(reason, waitMs)),
      storeBack: (afterMs, journaled) => options.onProblem?.(storeBackNote(afterMs, journaled)),
    }));
    const store = session.runs!.store!;
    const upstream = await openUpstream({ session, maxRetries: options.maxRetries });
    const gateway = await startGateway({ ...options, store, upstream, account, probeService: () => reachable(service.connection.baseUrl) });
    let closing: Promise<void> | undefined;
    const close = async (graceMs?: number) => {
      try {
        await gateway.close(graceMs);
      } finally {
        await closeAll();
      }
    };
    // Closed once: a second call waits for the first.
    return { ...gateway, service, account, store, close: (graceMs) => (closing ??= close(graceMs)) };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** Resolves once the service's host accepts a TCP connection (/readyz): nothing is sent, nothing bought. */
function reachable(baseUrl: URL): Promise<void> {
  const port = Number(baseUrl.port || (baseUrl.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: baseUrl.hostname.replace(/^\[(.*)\]$/, '$1'), port }, () => {
      socket.destroy();
      resolve();
    });
    // Left unanswered, the probe gives up (operator-route.ts says so); its socket goes with it.
    socket.setTimeout(GATEWAY_DOOR.readyProbeMs, () => socket.destroy(new Error(`no answer within ${GATEWAY_DOOR.readyProbeMs} ms`)));
    socket.once('error', (error) =>
      reject(new Error(`${baseUrl.host} cannot be reached: ${(error as NodeJS.ErrnoException).code ?? error.message}`)),
    );
  });
}
