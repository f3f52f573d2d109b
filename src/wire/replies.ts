import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSON_CONTENT_TYPE } from './content-type.js';

/** What a request is answered with, before it is written: the sandbox's, and a gateway's that speaks the same API. */
export interface Reply {
  status: number;
  /** JSON-serialisable, or a string sent as is (HTML pages), or undefined for an empty body. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/**
 * An error reply: `code` (the HTTP status) beside `message`, as the service's own client reads
 * them; it raises its exceptions from `code` and swallows an error body without one.
 */
export const errorReply = (status: number, text: string, headers?: Record<string, string>): Reply => ({
  status,
  body: { code: status, message: text },
  ...(headers ? { headers } : {}),
});

/**
 * Writes `reply` with `headers` under its own (the rate-limit headers every answer carries), its
 * length, and its type when it has a body: JSON's exactly, without a charset (content-type.ts).
 */
export function writeReply(response: ServerResponse, reply: Reply, headers: Readonly<Record<string, string>> = {}): void {
  const payload = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const all: Record<string, string | number> = { ...headers, ...reply.headers, 'Content-Length': Buffer.byteLength(payload) };
  if (payload !== '') all['Content-Type'] = reply.contentType ?? JSON_CONTENT_TYPE;
  response.writeHead(reply.status, all);
  response.end(payload);
}

/**
 * The request's body as text, or undefined when it is larger than `maxBytes`: what is past the
 * limit is read and dropped (the connection stays usable), never kept.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    request.on('data', (part: Buffer) => {
      size += part.length;
      if (size <= maxBytes) parts.push(part);
    });
    request.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}
