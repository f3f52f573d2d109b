import { afterEach } from 'vitest';
import type { OpenGateway } from '../../src/gateway/open-gateway.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { gatewayFor, issueKeys } from '../gateway/helpers.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

/** A window no test reaches: pacing follows the reported headers, as with the real service. */
export const WIDE_OPEN = [{ limit: 1_000_000, periodSeconds: 60 }];

/** The environment that points the CLI at `sandbox`. */
export function envFor(sandbox: RunningSandbox): Record<string, string> {
  return { PROPDATA_BASE_URL: sandbox.url, PROPDATA_API_KEY: sandbox.key, PROPDATA_API_SECRET: sandbox.secret };
}

/** How the CLI reaches the sandbox: directly, or through a gateway (`propdata serve`) in front of it. */
export type Route = 'directly' | 'through a gateway';
export const ROUTES: readonly Route[] = ['directly', 'through a gateway'];

/** A gateway in front of `sandbox` with a key of its own: the environment that points the CLI at it. */
async function throughGateway(sandbox: RunningSandbox): Promise<{ env: Record<string, string>; gateway: OpenGateway }> {
  const storePath = tempStorePath();
  const { client } = await issueKeys(storePath, [{ name: 'client' }]);
  const gateway = await gatewayFor(sandbox, storePath);
  return { env: { PROPDATA_BASE_URL: gateway.url, PROPDATA_API_KEY: 'client', PROPDATA_API_SECRET: client! }, gateway };
}

/**
 * A fresh sandbox for each test that starts one, closed after it: a wide window and ample credit
 * unless the test says otherwise. Strict, so a key propdata sends that the spec does not list
 * fails the test instead of being ignored. `start` returns the environment for the CLI: the
 * sandbox's, or (`route`) a gateway's in front of it, with a client key of the gateway's.
 */
export function sandboxPerTest(route: Route = 'directly') {
  let running: RunningSandbox | undefined;
  let gateway: OpenGateway | undefined;
  afterEach(async () => {
    await gateway?.close(0);
    await running?.close();
    running = undefined;
    gateway = undefined;
  });
  return {
    async start(options: SandboxOptions = {}): Promise<Record<string, string>> {
      running = await startSandbox({ rateLimits: WIDE_OPEN, credit: 1_000_000, strict: true, ...options });
      if (route === 'directly') return envFor(running);
      const through = await throughGateway(running);
      gateway = through.gateway;
      return through.env;
    },
    /** The sandbox this test started. */
    get current(): RunningSandbox {
      if (!running) throw new Error('this test started no sandbox');
      return running;
    },
  };
}
