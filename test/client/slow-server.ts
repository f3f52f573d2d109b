import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SYSTEM_CLOCK, type Clock } from '../../src/throttle/clock.js';

export interface SlowServer {
  url: string;
  /** Requests whose body the server has read, in order of arrival. */
  received: string[];
  close(): Promise<void>;
}

/**
 * A server that misbehaves slowly, which the scripted server cannot: `handle` gets each request
 * once its body is read and may answer in pieces, late, or never.
 */
export async function startSlowServer(handle: (response: ServerResponse, request: IncomingMessage) => void): Promise<SlowServer> {
  const received: string[] = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      received.push(Buffer.concat(parts).toString());
      handle(response, request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Headers at once, then one byte of the body every `everyMs` on `clock`, forever (until the client
 * hangs up). On a test's fake clock the bytes come in the client's virtual time, as its deadline does.
 */
export function drip(everyMs: number, clock: Clock = SYSTEM_CLOCK) {
  return (response: ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('[');
    const closed = new AbortController();
    response.on('close', () => closed.abort());
    void (async () => {
      for (;;) {
        await clock.sleep(everyMs, closed.signal);
        response.write(' ');
      }
    })().catch(() => undefined);
  };
}
