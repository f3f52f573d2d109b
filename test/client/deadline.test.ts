import type { ServerResponse } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOneOffTransport } from '../../src/client/one-off-transport.js';
import { createPoolTransport } from '../../src/client/pool-transport.js';
import { ServiceClient, type ServiceRequest } from '../../src/client/service-client.js';
import type { Timeouts } from '../../src/policy/policy.js';
import type { Transport } from '../../src/client/transport.js';
import { NetworkError, RequestAbortedError } from '../../src/errors/index.js';
import { SYSTEM_CLOCK, type Clock } from '../../src/throttle/clock.js';
import { FakeClock } from '../helpers/fake-clock.js';
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

type MakeTransport = (origin: string, timeouts: Timeouts, clock: Clock) => Transport | Promise<Transport>;

/** The same failures through both transports: a batch's pool, and a one-off's connection of its own. */
const TRANSPORTS: [string, MakeTransport][] = [
  ["a batch's pool (undici)", (origin, timeouts, clock) => createPoolTransport(origin, 1, timeouts, clock)],
  ["a one-off's connection (node:http)", (origin, timeouts, clock) => createOneOffTransport(origin, timeouts, clock)],
];

/**
 * A client whose deadlines are kept on `clock`. A test that waits for one to pass gives a
 * FakeClock, paused until the request is at the server (the server resumes it): waiting on real
 * I/O, the clock would jump to the deadline before the request went out. A test of a failure
 * that comes before any deadline keeps the system's clock, and asserts no time.
 */
async function clientOver(
  make: MakeTransport,
  url: string,
  responseMs: number,
  { connectMs = 2_000, clock = SYSTEM_CLOCK }: { connectMs?: number; clock?: Clock } = {},
): Promise<ServiceClient> {
  const timeouts = { connectMs, responseMs };
  const origin = new URL(url).origin;
  client = new ServiceClient({ baseUrl: new URL(url), key: 'key', secret: 'secret' }, await make(origin, timeouts, clock), {
    userAgent: 'test',
    timeouts,
  });
  return client;
}

const POST: ServiceRequest = { method: 'POST', path: 'v2/property/value', items: [{ slug: 'a' }] };

/** What send() rejected with, and how long it took on `clock` (virtual ms on a FakeClock). */
async function failure(send: Promise<unknown>, clock: Clock = SYSTEM_CLOCK): Promise<{ error: unknown; ms: number }> {
  const started = clock.now();
  try {
    await send;
  } catch (error) {
    return { error, ms: clock.now() - started };
  }
  throw new Error('send() resolved');
}

/** A server handler that lets the paused `clock` run once the request has arrived, then does `then`. */
const arrived =
  (clock: FakeClock, then: (response: ServerResponse) => void = () => undefined) =>
  (response: ServerResponse): void => {
    then(response);
    clock.resume();
  };

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
  const clientFor = (url: string, responseMs: number, options?: { connectMs?: number; clock?: Clock }) =>
    clientOver(make, url, responseMs, options);

  describe('the timeout', () => {
    it('is a deadline for the whole response: a body dripped faster than the timeout still fails at it', async () => {
      const clock = new FakeClock().pause();
      // A byte every 100 ms of the client's time: an idle timer would never fire.
      server = await startSlowServer(arrived(clock, drip(100, clock)));
      const { error, ms } = await failure((await clientFor(server.url, 800, { clock })).send(POST), clock);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).message).toBe('could not reach the service: timed out after 0.8 s');
      expect((error as NetworkError).mayHaveBeenCharged).toBe(true);
      expect(ms).toBe(800);
    });

    it('covers a server that never answers', async () => {
      const clock = new FakeClock().pause();
      server = await startSlowServer(arrived(clock));
      const { error, ms } = await failure((await clientFor(server.url, 500, { clock })).send(POST), clock);
      expect((error as NetworkError).message).toMatch(/timed out after 0.5 s/);
      expect((error as NetworkError).mayHaveBeenCharged).toBe(true);
      expect(ms).toBe(500);
    });

    it("is a request's own when it gives one (a library call's timeout), longer or shorter than the client's", async () => {
      const clock = new FakeClock().pause();
      server = await startSlowServer(arrived(clock));
      const sender = await clientFor(server.url, 500, { clock });
      const longer = await failure(sender.send({ ...POST, timeoutMs: 2_000 }), clock);
      expect((longer.error as NetworkError).message).toBe('could not reach the service: timed out after 2 s');
      expect(longer.ms).toBe(2_000);
      clock.pause();
      const shorter = await failure(sender.send({ ...POST, timeoutMs: 200 }), clock);
      expect((shorter.error as NetworkError).message).toBe('could not reach the service: timed out after 0.2 s');
      expect(shorter.ms).toBe(200);
    });

    it('has a connect timeout of its own, which covers the TLS handshake: nothing was sent', async () => {
      silent = await startSilentServer();
      const { error } = await failure((await clientFor(`https://127.0.0.1:${silent.port}`, 5_000, { connectMs: 300 })).send(POST));
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
      const clock = new FakeClock().pause();
      server = await startSlowServer(arrived(clock, drip(100, clock)));
      const controller = new AbortController();
      void clock.sleep(200).then(() => controller.abort());
      const sending = (await clientFor(server.url, 5_000, { clock })).send({ ...POST, signal: controller.signal });
      const { error, ms } = await failure(sending, clock);
      expect(error).toBeInstanceOf(RequestAbortedError);
      expect(error).not.toBeInstanceOf(NetworkError);
      expect((error as RequestAbortedError).code).toBe('E_ABORTED');
      expect((error as RequestAbortedError).mayHaveBeenCharged).toBe(true);
      expect(ms).toBe(200);
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
    const clock = new FakeClock().pause();
    server = await startSlowServer(arrived(clock, drip(100, clock)));
    const pool = await clientOver(TRANSPORTS[0]![1], server.url, 600, { clock });
    const first = failure(pool.send(POST), clock);
    const controller = new AbortController();
    void clock.sleep(150).then(() => controller.abort());
    const second = await failure(pool.send({ ...POST, items: [{ slug: 'b' }], signal: controller.signal }), clock);
    expect(second.error).toBeInstanceOf(RequestAbortedError);
    expect((second.error as RequestAbortedError).mayHaveBeenCharged).toBe(false);
    expect(second.ms).toBe(150);
    expect(((await first).error as NetworkError).mayHaveBeenCharged).toBe(true);
    // The socket is free again once the first request's deadline cut it: the second must not go
    // out then. A third, queued after it, reaching the server shows the queue has moved past it.
    clock.pause();
    const third = failure(pool.send({ ...POST, items: [{ slug: 'c' }] }), clock);
    expect(((await third).error as NetworkError).message).toMatch(/timed out/);
    expect(server.received).toEqual([JSON.stringify([{ slug: 'a' }]), JSON.stringify([{ slug: 'c' }])]);
  });

  it("gives undici's own header and body timers a request's longer deadline, not the pool's", async () => {
    // Real time: undici's timers are its own (about a second fine), so the answer comes 1.2 s late.
    server = await startSlowServer((response) => setTimeout(() => response.end('[]'), 1_200));
    const pool = await clientOver(TRANSPORTS[0]![1], server.url, 100);
    const answered = await pool.send({ ...POST, timeoutMs: 10_000 });
    expect(answered.status).toBe(200);
  });
});

describe('a one-off', () => {
  it('gives --timeout to the CLI as a deadline', async () => {
    server = await startSlowServer(drip(100));
    const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's3cret' };
    // A byte every 100 ms: only a deadline ends it (the test's own timeout would, were it an idle timer).
    const result = await runMain(['property', 'value', '--slug', 'a', '--timeout', '1', '--max-retries', '0'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/timed out after 1 s/);
  });
});
