import { startSandbox as startServer, sandboxOptionsFrom, type RateWindow } from '../sandbox/index.js';

/** What a sandbox is started with; every member optional. */
export interface SandboxSettings {
  /**
   * Its rate windows: as `propdata sandbox --rate-limit` takes them (`'250/60'`: 250 components a
   * minute; `'20/1,250/60'` both at once; `'off'`), or as a list (`[{ limit: 250, periodSeconds: 60 }]`).
   * Default: the service's self-serve plan's, 250/60 (as `propdata sandbox`).
   */
  rateLimit?: string | readonly RateWindow[];
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
  // Text goes through --rate-limit's own parser (a UsageError names what is wrong with it).
  const rateLimit = typeof settings.rateLimit === 'string' ? settings.rateLimit : settings.rateLimit && [...settings.rateLimit];
  const sandbox = await startServer(sandboxOptionsFrom({ rateLimit, credit: settings.credit }));
  return { url: sandbox.url, key: sandbox.key, secret: sandbox.secret, close: () => sandbox.close() };
}
