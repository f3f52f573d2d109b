import { afterEach } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/** A window no test reaches: pacing follows the reported headers, as with the real service. */
export const WIDE_OPEN = [{ limit: 1_000_000, periodSeconds: 60 }];

/** The environment that points the CLI at `sandbox`. */
export function envFor(sandbox: RunningSandbox): Record<string, string> {
  return { PROPDATA_BASE_URL: sandbox.url, PROPDATA_API_KEY: sandbox.key, PROPDATA_API_SECRET: sandbox.secret };
}

/**
 * A fresh sandbox for each test that starts one, closed after it: a wide window and ample credit
 * unless the test says otherwise. Strict, so a key propdata sends that the spec does not list
 * fails the test instead of being ignored. `start` returns the environment for the CLI.
 */
export function sandboxPerTest() {
  let running: RunningSandbox | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  return {
    async start(options: SandboxOptions = {}): Promise<Record<string, string>> {
      running = await startSandbox({ rateLimits: WIDE_OPEN, credit: 1_000_000, strict: true, ...options });
      return envFor(running);
    },
    /** The sandbox this test started. */
    get current(): RunningSandbox {
      if (!running) throw new Error('this test started no sandbox');
      return running;
    },
  };
}
