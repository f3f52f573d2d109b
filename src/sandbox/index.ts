/** The sandbox: a local stand-in for the service, with synthetic data derived from the catalog. */
export { startSandbox, USAGE_PATH, type RunningSandbox } from './server.js';
export { SANDBOX_OPTIONS, parseLatency, parseRateLimits, sandboxOptionsFrom } from './options.js';
export type { OptionSpec, RateWindow, SandboxOptions } from './options.js';
export type { SandboxUsage } from './billing.js';
export { TEST_ITEMS } from './test-items.js';
export { TEST_KEY_PREFIX } from './auth.js';
