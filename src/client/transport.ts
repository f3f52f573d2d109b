import type { IncomingHttpHeaders } from 'node:http';

/** One request as it goes to the service's origin: `path` is absolute, with its query string. */
export interface TransportRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export type Exchange =
  | { outcome: 'answered'; status: number; headers: IncomingHttpHeaders; body: string }
  /** `sent`: the request was handed to a connected socket, so the service may have received it. */
  | { outcome: 'failed'; error: unknown; sent: boolean }
  | { outcome: 'timed out'; sent: boolean }
  | { outcome: 'aborted'; sent: boolean };

export interface ExchangeLimits {
  /** The whole exchange, from the call to the body's last byte (Timeouts.responseMs). */
  deadlineMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * How a request reaches the service and its answer comes back, whole: no redirect followed, no
 * body decompressed (none is asked for), TLS always verified. A deadline or an abort settles at
 * once. Two of them: a batch's keep-alive pool (undici, pool-transport.ts) and a one-off's single
 * connection (node's own http, one-off-transport.ts). What is sent and what an answer means stay
 * the service client's, one copy for both.
 */
export interface Transport {
  exchange(request: TransportRequest, limits: ExchangeLimits): Promise<Exchange>;
  /** Ends the transport's connections once the requests under way have settled. */
  close(): Promise<void>;
}
