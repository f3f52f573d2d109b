import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: any;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT';
  body?: unknown;
  /** `key:secret`; defaults to the sandbox's own pair. `null` sends no Authorization header. */
  credentials?: string | null;
  contentType?: string;
  query?: Record<string, string | number>;
}

export function basic(credentials: string): string {
  return `Basic ${Buffer.from(credentials).toString('base64')}`;
}

/** The path and query string a call sends (`/v2/property/value?address=43+Valmonte+Plaza&...`). */
export function pathWithQuery(path: string, query: Record<string, string | number> = {}): string {
  const url = new URL(path, 'http://sandbox.invalid');
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  return `${url.pathname}${url.search}`;
}

export async function call(sandbox: RunningSandbox, path: string, options: CallOptions = {}): Promise<Reply> {
  const url = new URL(sandbox.url + pathWithQuery(path, options.query));
  const credentials = options.credentials === undefined ? `${sandbox.key}:${sandbox.secret}` : options.credentials;
  const headers: Record<string, string> = {};
  if (credentials !== null) headers.authorization = basic(credentials);
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  if (method === 'POST') headers['content-type'] = options.contentType ?? 'application/json';
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A sandbox without rate limits or credit worries, for tests that are about data. */
export function dataSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ rateLimits: [], credit: 1_000_000, ...options });
}

export const VALMONTE = { address: '43 Valmonte Plaza', zipcode: '90274' };

/** Many distinct, well-formed addresses across states, for properties of the synthetic data as a whole. */
export function addresses(count: number, salt = 'a'): Array<{ address: string; zipcode: string }> {
  const zips = ['90274', '21201', '10118', '60614', '73301', '33101', '98101', '02139', '80202', '30301'];
  return Array.from({ length: count }, (_, index) => ({
    address: `${100 + index} ${salt === 'a' ? 'Maple' : salt} ${['St', 'Ave', 'Rd', 'Ln'][index % 4]}`,
    zipcode: zips[index % zips.length]!,
  }));
}
