import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { GatewayRequestLog } from '../../src/gateway/gateway-parts.js';
import { hashSecret, isLegacyHash, legacySecretMatches, newSecret, secretMatches } from '../../src/gateway/key-secrets.js';
import { KeyRing, LoginsBusy } from '../../src/gateway/key-ring.js';
import { openStore, type KeyStore } from '../../src/store/index.js';
import { databasePerFile, freshSchema } from '../helpers/postgres.js';
import { tempStorePath } from '../store/helpers/temp-store.js';
import { basic, gatewayPerTest } from './helpers.js';

const start = gatewayPerTest();
const database = databasePerFile();
const PATH = '/v2/property/value?address=43+Valmonte+Plaza&zipcode=90274';

/** A scrypt hash as propdata issued them before HMAC (scrypt:N:r:p:salt:hash), made here as it made them. */
async function legacyHash(secret: string): Promise<string> {
  const { scrypt } = await import('node:crypto');
  const salt = Buffer.from('0123456789abcdef');
  const hash = await new Promise<Buffer>((resolve, reject) =>
    scrypt(secret, salt, 32, { N: 32_768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key))),
  );
  return ['scrypt', 32_768, 8, 1, salt.toString('base64url'), hash.toString('base64url')].join(':');
}

/** Sockets to `url`'s host that connect and send nothing. */
async function idleSockets(url: string, count: number): Promise<Socket[]> {
  const { hostname, port } = new URL(url);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
          socket.on('error', () => undefined);
          socket.once('error', reject);
        }),
    ),
  );
}

describe("the gateway's door", () => {
  it('checks a secret by a keyed hash in microseconds, and still opens a key of an older propdata (scrypt) once', async () => {
    const secret = newSecret();
    const stored = await hashSecret(secret);
    expect(stored).toMatch(/^hmac-sha256:[\w-]{22}:[\w-]{43}$/);
    const started = performance.now();
    for (let i = 0; i < 1_000; i += 1) secretMatches(i % 2 === 0 ? secret : 'wrong', stored);
    expect((performance.now() - started) / 1_000).toBeLessThan(0.5);
    expect([secretMatches(secret, stored), secretMatches('wrong', stored), secretMatches(secret, 'scrypt:1:1:1:x:y')]).toEqual([
      true,
      false,
      false,
    ]);
    const old = await legacyHash(secret);
    expect([isLegacyHash(old), await legacySecretMatches(secret, old), await legacySecretMatches('wrong', old)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('checks keys still under scrypt two at a time, 64 waiting: past that, a login is answered busy, not queued without end', async () => {
    const cheap = ['scrypt', 1_024, 8, 1, Buffer.from('salt').toString('base64url'), Buffer.alloc(32).toString('base64url')].join(':');
    const keys = [{ name: 'old-timer', secretHash: cheap, created: 0 }];
    const ring = new KeyRing({ list: () => Promise.resolve(keys) } as unknown as KeyStore);
    await ring.refresh();
    const outcomes = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        ring.authenticate('old-timer', `guess-${i}`).then(String, (error: unknown) => (error as Error).constructor.name),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'undefined').length).toBe(2 + 64);
    expect(outcomes.filter((outcome) => outcome === LoginsBusy.name).length).toBe(4);
    // Once they are done, the next is checked.
    expect(await ring.authenticate('old-timer', 'one more')).toBeUndefined();
  });

  for (const driver of ['SQLite', 'PostgreSQL'] as const) {
    it(`moves a key's scrypt hash to the keyed hash in the store at its first login, which later logins use (${driver})`, async () => {
      const storePath = driver === 'SQLite' ? tempStorePath() : freshSchema(database.url);
      const { gateway } = await start({ keys: [], storePath });
      const secret = newSecret();
      const store = await openStore(storePath);
      try {
        await store.keys.add({ name: 'old-timer', secretHash: await legacyHash(secret), created: Date.now() });
        // Seen by the gateway at its next read of the keys (as /readyz reads them).
        expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
        const ask = (given: string) => fetch(`${gateway.url}${PATH}`, { headers: { authorization: basic('old-timer', given) } });
        expect((await ask('wrong')).status).toBe(401);
        expect((await store.keys.list())[0]!.secretHash).toMatch(/^scrypt:/);
        expect((await ask(secret)).status).toBe(200);
        const moved = (await store.keys.list())[0]!.secretHash;
        expect(moved).toMatch(/^hmac-sha256:/);
        expect(secretMatches(secret, moved)).toBe(true);
        expect((await ask(secret)).status).toBe(200);
        expect((await ask('wrong')).status).toBe(401);
      } finally {
        await store.close();
      }
    });
  }

  it('keeps its connections under its cap: a flood of idle ones gives way, oldest first, to a client that asks', async () => {
    const { request, gateway } = await start({ gateway: { maxConnections: 50 } });
    const idle = await idleSockets(gateway.url, 200);
    const closedByGateway = new Set<Socket>();
    for (const socket of idle) socket.once('close', () => closedByGateway.add(socket));
    const response = await request('alice', PATH);
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // 50 open at most: the client took the place of the oldest idle one, as the oldest 150 gave theirs to the newer.
    expect(closedByGateway.size).toBeGreaterThanOrEqual(151);
    expect(closedByGateway.has(idle[0]!)).toBe(true);
    expect(closedByGateway.has(idle.at(-1)!)).toBe(false);
    for (const socket of idle) socket.destroy();
  });

  it('answers a request that bought its answer whatever the keys it echoes: encoded, never a 500', async () => {
    const { request, sandbox } = await start();
    const body = JSON.stringify([{ address: '1 Main St', zipcode: '21201', 'crlf\r\nSet-Cookie: x=1': 1, 'ünïcödé 😀': 2, 'a,b': 3 }]);
    const response = await request('alice', '/v2/property/value', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(response.headers.get('x-propdata-ignored-keys')).toBe(
      'crlf%0D%0ASet-Cookie:%20x=1, %C3%BCn%C3%AFc%C3%B6d%C3%A9%20%F0%9F%98%80, a%2Cb',
    );
    expect(sandbox.usage().components).toBe(1);
  });

  it('reads a path beginning with two slashes as the path it names', async () => {
    const { request } = await start();
    const response = await request('alice', `/${PATH}`);
    expect(response.status).toBe(200);
  });

  it('cuts a body that does not arrive within requestTimeout, and its log line says so', { timeout: 20_000 }, async () => {
    const logged: GatewayRequestLog[] = [];
    const { gateway, secrets } = await start({
      gateway: { requestTimeouts: { headersMs: 1_000, requestMs: 2_000 }, onRequest: (entry) => logged.push(entry) },
    });
    const { hostname, port } = new URL(gateway.url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    const sent = performance.now();
    socket.write(
      `POST /v2/property/value HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('alice', secrets.alice!)}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[`,
    );
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (part: Buffer) => (text += part.toString()));
      socket.on('close', () => resolve(text));
    });
    const elapsed = performance.now() - sent;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(3_500);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logged.at(-1)).toMatchObject({
      status: 408,
      cut: 'cut: the request did not arrive whole within 2 s (requestTimeout)',
    });
  });
});
