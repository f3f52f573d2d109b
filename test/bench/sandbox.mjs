import { BIN } from './paths.mjs';
import { startServerProcess } from './server-process.mjs';

/**
 * The sandbox in its own process, as a user runs it (`propdata sandbox`). Credit is unlimited
 * for practical purposes: a million rows must not run into 402.
 */
export async function startSandbox(extraArgs = []) {
  const server = await startServerProcess([BIN, 'sandbox', '--port', '0', '--credit', '1000000000', ...extraArgs]);
  return {
    ...server,
    /** What the CLI needs to reach this sandbox. */
    env: { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'sandbox', PROPDATA_API_SECRET: 'sandbox' },
  };
}
