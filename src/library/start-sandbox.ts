import { startSandbox as startServer, sandboxOptionsFrom, type RateWindow } from '../sandbox/index.js';

/** What a sandbox is started with; every member optional. */
export interface SandboxSettings {
  /** Its rate windows. Default: the service's self-serve plan's (as `propdata sandbox`). */
  rateLimit?: RateWindow[];
  /** Its starting credit in USD. Default: as `propdata sandbox`. */
  credit?: number;
}

/** A running sandbox: where it listens, the credentials it takes, and how to stop it. */
export interface Sandbox {
  url: string;
  key: string;
  secret: string;
  close(): Promise<void>;
}

/**
 * The sandbox propdata carries, on a free port of 127.0.0.1: the service's paths, auth, rules,
 * limits, billing and errors, with deterministic synthetic data. For a caller's own tests:
 * `createClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret })`.
 */
export async function startSandbox(settings: SandboxSettings = {}): Promise<Sandbox> {
  const sandbox = await startServer(sandboxOptionsFrom({ rateLimit: settings.rateLimit, credit: settings.credit }));
  return { url: sandbox.url, key: sandbox.key, secret: sandbox.secret, close: () => sandbox.close() };
}
