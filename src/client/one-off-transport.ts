import type { IncomingMessage } from 'node:http';
import { urlToHttpOptions } from 'node:url';
import { startTimer, SYSTEM_CLOCK, type Clock } from '../throttle/clock.js';
import type { Timeouts } from '../policy/policy.js';
import type { Exchange, Transport } from './transport.js';
import { tunnelThrough } from './tunnel.js';

/** The answer's body collected whole, then `settle` told; a connection dropped mid-body is a failure after sending. */
function readAnswer(response: IncomingMessage, settle: (result: Exchange) => void): void {
  const parts: Buffer[] = [];
  response.on('data', (part: Buffer) => parts.push(part));
  response.once('end', () =>
    settle({
      outcome: 'answered',
      status: response.statusCode ?? 0,
      headers: response.headers,
      body: Buffer.concat(parts).toString('utf8'),
    }),
  );
  // Node reports a connection dropped mid-body on the response (ECONNRESET, "aborted").
  response.once('error', (error) => settle({ outcome: 'failed', error, sent: true }));
}

/**
 * A one-off's transport: each attempt on a connection of its own over node's built-in http or
 * https, closed with its answer. A one-off sends one request, so undici's pool has nothing to
 * reuse, and loading it (over a hundred modules) was a third of a one-off's wall time; node's
 * own modules load from its binary (BENCHMARKS.md, start-up). Like the pool, it follows no
 * redirect and decompresses nothing (none is asked for); https verifies the certificate. Its
 * deadline and connect timeout are kept on `clock`: the system's for a run (as the pool's).
 * Through `proxy`, each connection is a CONNECT tunnel (tunnel.ts), the connect timeout covering it.
 */
export async function createOneOffTransport(
  origin: string,
  timeouts: Timeouts,
  clock: Clock = SYSTEM_CLOCK,
  proxy?: URL,
): Promise<Transport> {
  // The host and port as node's own fetch would take them from the URL (an IPv6 host unbracketed).
  const { protocol, hostname, port } = urlToHttpOptions(new URL(origin));
  const tls = protocol === 'https:';
  // https loads node's TLS as well: only for an https origin (the sandbox is plain http).
  const { request: send } = tls ? await import('node:https') : await import('node:http');
  const target = { hostname: hostname ?? '', port: Number(port) || (tls ? 443 : 80), tls };
  return {
    async exchange(request, { deadlineMs, signal }) {
      if (signal?.aborted) return { outcome: 'aborted', sent: false };
      const tunnel = proxy === undefined ? undefined : await tunnelThrough(proxy, target);
      return new Promise<Exchange>((resolve) => {
        let sent = false;
        let settled = false;
        const settle = (result: Exchange): void => {
          if (settled) return;
          settled = true;
          cancelDeadline();
          cancelConnecting();
          signal?.removeEventListener('abort', onAbort);
          // Cut short here: the socket is closed so that nothing more is read or sent.
          if (result.outcome !== 'answered') {
            tunnel?.cancel();
            outgoing.destroy();
          }
          resolve(result);
        };
        const onAbort = (): void => settle({ outcome: 'aborted', sent });
        const cancelDeadline = startTimer(clock, deadlineMs, () => settle({ outcome: 'timed out', sent }));
        // Connecting (name lookup, TCP, TLS) has its own limit, as in the pool; its failure carries
        // the code the OS gives a connection attempt that timed out.
        const cancelConnecting = startTimer(clock, timeouts.connectMs, () => {
          const error = Object.assign(new Error(`connect timed out after ${timeouts.connectMs} ms`), { code: 'ETIMEDOUT' });
          settle({ outcome: 'failed', error, sent });
        });
        signal?.addEventListener('abort', onAbort, { once: true });

        const body = request.body === undefined ? undefined : Buffer.from(request.body);
        const outgoing = send({
          protocol,
          hostname,
          port,
          method: request.method,
          path: request.path,
          headers: body === undefined ? request.headers : { ...request.headers, 'content-length': String(body.length) },
          // A connection of its own, closed after the answer: nothing keeps the process alive.
          ...(tunnel ? { createConnection: tunnel.createConnection } : { agent: false }),
        });
        // Once connected the request is written, and from then on the service may have it.
        const onConnected = (): void => {
          cancelConnecting();
          sent = true;
        };
        outgoing.once('socket', (socket) => {
          if (socket.connecting) socket.once(tls ? 'secureConnect' : 'connect', onConnected);
          else onConnected();
        });
        outgoing.on('error', (error) => settle({ outcome: 'failed', error, sent }));
        outgoing.once('response', (response: IncomingMessage) => readAnswer(response, settle));
        outgoing.end(body);
      });
    },
    // Each exchange closes its own connection when it settles: nothing is left open here.
    close: () => Promise.resolve(),
  };
}
