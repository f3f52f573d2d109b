import { afterEach } from 'vitest';
import { LibraryLog } from '../../src/library/library-log.js';
import { hashSecret, newSecret } from '../../src/gateway/key-secrets.js';
import { openGateway, type GatewayOptions, type OpenGateway } from '../../src/gateway/open-gateway.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/index.js';
import type { ClientKey } from '../../src/store/index.js';
import { SYSTEM_CLOCK } from '../../src/throttle/clock.js';
import { tempStorePath } from '../store/helpers/temp-store.js';
import { WIDE_OPEN } from '../helpers/sandbox-per-test.js';

export const ADMIN_KEY = 'admin-key-of-the-tests';

/** A key to issue before the gateway starts: its name, and its budget and endpoints if any. */
export type KeyPlan = Omit<ClientKey, 'secretHash' | 'created'>;

/** Issues keys in a store as `propdata keys add` does; their secrets, by name. */
export async function issueKeys(storePath: string, plans: readonly KeyPlan[]): Promise<Record<string, string>> {
  const store = await openStore(storePath);
  const secrets: Record<string, string> = {};
  try {
    for (const plan of plans) {
      const secret = newSecret();
      await store.keys.add({ ...plan, secretHash: await hashSecret(secret), created: Date.now() });
      secrets[plan.name] = secret;
    }
  } finally {
    await store.close();
  }
  return secrets;
}

export interface GatewayFixture {
  sandbox: RunningSandbox;
  gateway: OpenGateway;
  storePath: string;
  /** The issued keys' secrets, by name. */
  secrets: Record<string, string>;
  /** fetch against the gateway as key `name` (its own secret unless `secret` says otherwise). */
  request: (name: string, path: string, init?: RequestInit & { secret?: string }) => Promise<Response>;
}

export interface FixtureOptions {
  sandbox?: SandboxOptions;
  keys?: readonly KeyPlan[];
  storePath?: string;
  gateway?: Partial<Omit<GatewayOptions, 'connection' | 'log' | 'storePath'>>;
}

/** The Authorization header of a key and secret. */
export const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

let gateways = 0;

/** A gateway in front of `sandbox`, on a store at `storePath`, as `propdata serve` opens one: each a name of its own. */
export function gatewayFor(sandbox: RunningSandbox, storePath: string, options: FixtureOptions['gateway'] = {}): Promise<OpenGateway> {
  return openGateway({
    connection: { baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, timeout: 60 },
    env: {},
    log: new LibraryLog(undefined),
    storePath,
    host: '127.0.0.1',
    port: 0,
    adminKey: ADMIN_KEY,
    maxAgeMs: 30 * 86_400_000,
    maxWaitMs: 50_000,
    maxCostMonth: undefined,
    ratePerMinute: 250,
    maxRetries: 5,
    concurrency: 8,
    runLabel: `serve test ${(gateways += 1)}`,
    clock: SYSTEM_CLOCK,
    ...options,
  });
}

/**
 * A sandbox (strict, wide open, ample credit unless told otherwise), a store in a temp directory with
 * the keys issued, and a gateway on both, as `propdata serve` opens one; closed after the test.
 */
export function gatewayPerTest() {
  const started: { sandbox: RunningSandbox; gateway: OpenGateway }[] = [];
  afterEach(async () => {
    for (const { sandbox, gateway } of started.splice(0)) {
      await gateway.close(0);
      await sandbox.close();
    }
  });
  return async (options: FixtureOptions = {}): Promise<GatewayFixture> => {
    const sandbox = await startSandbox({ rateLimits: WIDE_OPEN, credit: 1_000_000, strict: true, ...options.sandbox });
    const storePath = options.storePath ?? tempStorePath();
    const secrets = await issueKeys(storePath, options.keys ?? [{ name: 'alice' }]);
    const gateway = await gatewayFor(sandbox, storePath, options.gateway);
    started.push({ sandbox, gateway });
    return {
      sandbox,
      gateway,
      storePath,
      secrets,
      request: (name, path, init = {}) => {
        const { secret, headers, ...rest } = init;
        return fetch(`${gateway.url}${path}`, {
          ...rest,
          headers: { authorization: basic(name, secret ?? secrets[name] ?? ''), ...(headers as Record<string, string> | undefined) },
        });
      },
    };
  };
}

/** The same request straight to the sandbox, with its own credentials: what the service would answer. */
export function direct(sandbox: RunningSandbox, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${sandbox.url}${path}`, {
    ...init,
    headers: { authorization: basic(sandbox.key, sandbox.secret), ...(init.headers as Record<string, string> | undefined) },
  });
}
