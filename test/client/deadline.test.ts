import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOneOffTransport } from '../../src/client/one-off-transport.js';
import { createPoolTransport } from '../../src/client/pool-transport.js';
import { ServiceClient, type ServiceRequest } from '../../src/client/service-client.js';
import type { Timeouts } from '../../src/client/timeouts.js';
import type { Transport } from '../../src/client/transport.js';
import { NetworkError, RequestAbortedError } from '../../src/errors/index.js';
import { runMain } from '../helpers/run-main.js';
import { drip, startSlowServer, type SlowServer } from './slow-server.js';

let server: SlowServer | undefined;
let silent: SilentServer | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  await silent?.close();
  client = server = silent = undefined;
});

type MakeTransport = (origin: string, timeouts: Timeouts) => Transport | Promise<Transport>;

/** The same failures through both transports: a batch's pool, and a one-off's connection of its own. */
const TRANSPORTS: [string, MakeTransport][] = [
  ["a batch's pool (undici)", (origin, timeouts) => createPoolTransport(origin, 1, timeouts)],
  ["a one-off's connection (node:http)", (origin, timeouts) => createOneOffTransport(origin, timeouts)],
];

async function clientOver(make: MakeTransport, url: string, responseMs: number, connectMs = 2_000): Promise<ServiceClient> {
  const timeouts = { connectMs, responseMs };
  const origin = new URL(url).origin;
  client = new ServiceClient({ baseUrl: new URL(url), key: 'key', secret: 'secret' }, await make(origin, timeouts), {
    userAgent: 'test',
    timeouts,
  });
  return client;
}

const POST: ServiceRequest = { method: 'POST', path: 'v2/property/value', items: [{ slug: 'a' }] };

/** What send() rejected with, and how long it took. */
async function failure(send: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await send;
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error('send() resolved');
}

interface SilentServer {
  port: number;
  close(): Promise<void>;
}

/** A TCP server that accepts connections and never says a word: a TLS handshake with it never ends. */
async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  const tcp: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  return {
    port: (tcp.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        tcp.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe.each(TRANSPORTS)('over %s', (_, make) => {
  const clientFor = (url: string, responseMs: number, connectMs?: number) => clientOver(make, url, responseMs, connectMs);

  describe('the timeout', () => {
    it('is a deadline for the whole response: a body dripped faster than the timeout still fails within it', async () => {
      server = await startSlowServer(drip(100));
      const { error, ms } = await failure((await clientFor(server.url, 800)).send(POST));
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).message).toBe('could not reach the service: timed out after 0.8 s');
      expect((error as NetworkError).mayHaveBeenCharged).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(750);
      expect(ms).toBeLessThan(2_000);
    });

    it('covers a server that never answers', async () => {
      server = await startSlowServer(() => undefined);
      const { error, ms } = await failure((await clientFor(server.url, 500)).send(POST));
      expect((error as NetworkError).message).toMatch(/timed out after 0.5 s/);
      expect((error as NetworkError).mayHaveBeenCharged).toBe(true);
      expect(ms).toBeLessThan(1_500);
    });

    it('has a connect timeout of its own, which covers the TLS handshake: nothing was sent', async () => {
      silent = await startSilentServer();
      const { error } = await failure((await clientFor(`https://127.0.0.1:${silent.port}`, 5_000, 300)).send(POST));
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).message).toBe('could not reach the service: timed out while connecting');
      expect((error as NetworkError).mayHaveBeenCharged).toBe(false);
    });
  });

  describe('mayHaveBeenCharged', () => {
    it('is false when no connection was made', async () => {
      const { error } = await failure((await clientFor(`http://127.0.0.1:${await closedPort()}`, 1_000)).send(POST));
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).message).toMatch(/connection refused/);
      expect((error as NetworkError).mayHaveBeenCharged).toBe(false);
    });

    it('is true when the connection dropped after the request went out', async () => {
      server = await startSlowServer((response) => response.socket?.destroy());
      const { error } = await failure((await clientFor(server.url, 1_000)).send(POST));
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).mayHaveBeenCharged).toBe(true);
      expect(server.received).toHaveLength(1);
    });

    it('is true when the connection dropped in the middle of the body', async () => {
      server = await startSlowServer((response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('[{"address_info"', () => response.socket?.destroy());
      });
      const { error } = await failure((await clientFor(server.url, 1_000)).send(POST));
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).mayHaveBeenCharged).toBe(true);
    });
  });

  describe('a request cancelled by its signal', () => {
    it('rejects at once with RequestAbortedError, which is not a NetworkError (never retried)', async () => {
      server = await startSlowServer(drip(100));
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const { error, ms } = await failure((await clientFor(server.url, 5_000)).send({ ...POST, signal: controller.signal }));
      expect(error).toBeInstanceOf(RequestAbortedError);
      expect(error).not.toBeInstanceOf(NetworkError);
      expect((error as RequestAbortedError).code).toBe('E_ABORTED');
      expect((error as RequestAbortedError).mayHaveBeenCharged).toBe(true);
      expect(ms).toBeLessThan(1_000);
    });

    it('is not sent at all when the signal is already aborted', async () => {
      server = await startSlowServer(drip(100));
      const { error } = await failure((await clientFor(server.url, 5_000)).send({ ...POST, signal: AbortSignal.abort() }));
      expect(error).toBeInstanceOf(RequestAbortedError);
      expect((error as RequestAbortedError).mayHaveBeenCharged).toBe(false);
      expect(server.received).toHaveLength(0);
    });
  });
});

describe("a batch's pool", () => {
  it('settles a cancelled request at once while it waits for a socket, and then never sends it', async () => {
    server = await startSlowServer(drip(100));
    const pool = await clientOver(TRANSPORTS[0]![1], server.url, 600);
    const first = failure(pool.send(POST));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const second = await failure(pool.send({ ...POST, items: [{ slug: 'b' }], signal: controller.signal }));
    expect(second.error).toBeInstanceOf(RequestAbortedError);
    expect((second.error as RequestAbortedError).mayHaveBeenCharged).toBe(false);
    expect(second.ms).toBeLessThan(450);
    expect(((await first).error as NetworkError).mayHaveBeenCharged).toBe(true);
    // The socket is free again once the first request's deadline cut it: the second must not go out then.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.received).toEqual([JSON.stringify([{ slug: 'a' }])]);
  });
});

describe('a one-off', () => {
  it('gives --timeout to the CLI as a deadline', async () => {
    server = await startSlowServer(drip(100));
    const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's3cret' };
    const started = Date.now();
    const result = await runMain(['property', 'value', '--slug', 'a', '--timeout', '1', '--max-retries', '0'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/timed out after 1 s/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
