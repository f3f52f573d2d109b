import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { Agent, fetch as fetchThrough } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { runMain } from '../helpers/run-main.js';
import { tempStorePath } from '../store/helpers/temp-store.js';
import { basic, issueKeys } from './helpers.js';
import { freePort, spawnServe, testCertificate, type ServeProcess } from './serve-process.js';

const json = { 'content-type': 'application/json' };
const homes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    address: `${from + i} Confidential Client Ln`,
    zipcode: '21201',
    meta: `m${from + i}`,
  }));

/** The account's own pair, which no client may ever see, nor any log. */
const ACCOUNT = { key: 'acct-key-7Qx2', secret: 'acct-secret-9Lm4Tz' };

let sandbox: RunningSandbox | undefined;
const processes: ServeProcess[] = [];
afterEach(async () => {
  for (const served of processes.splice(0)) {
    served.child.kill('SIGKILL');
    await served.exited;
  }
  await sandbox?.close();
  sandbox = undefined;
});

async function upstream(options: SandboxOptions = {}): Promise<RunningSandbox> {
  sandbox = await startSandbox({ credit: 1_000_000, strict: true, ...ACCOUNT, ...options });
  return sandbox;
}

/** `propdata serve` in front of `to`, as its own process, on `store`; args appended. */
async function serve(to: RunningSandbox, store: string, args: string[] = []): Promise<ServeProcess> {
  const env = { PROPDATA_BASE_URL: to.url, PROPDATA_API_KEY: to.key, PROPDATA_API_SECRET: to.secret, PROPDATA_HOME: join(store, '..') };
  const served = await spawnServe(['--store', store, '--port', '0', '--admin-key', 'adm', ...args], env);
  processes.push(served);
  return served;
}

describe('a gateway, safe by default', () => {
  it('listens on this machine only unless given TLS, or told the traffic is plain', async () => {
    const open = await runMain(['serve', '--sandbox', '--host', '0.0.0.0', '--store', tempStorePath()]);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('--host 0.0.0.0 is reachable from other machines');
    expect(open.stderr).toContain('give --tls-cert and --tls-key to serve HTTPS, or --insecure-plain-http');
    const half = await runMain(['serve', '--sandbox', '--tls-cert', 'gw.pem', '--store', tempStorePath()]);
    expect([half.code, half.stderr]).toEqual([2, expect.stringContaining('give --tls-cert and --tls-key together')]);
    const told = new AbortController();
    const plain = await runMain(
      ['serve', '--sandbox', '--host', '0.0.0.0', '--port', '0', '--insecure-plain-http', '--store', tempStorePath()],
      {
        signal: told.signal,
        watch: ({ stdout }) => {
          if (stdout.includes('Stop it with')) told.abort();
        },
      },
    );
    expect(plain.code).toBe(0);
    // Listening on every interface, it names the address other machines use, not the loopback.
    expect(plain.stdout).toMatch(/listening on every interface, port \d+: clients use http:\/\/\S+:\d+/);
  });

  it('serves HTTPS with the certificate and key it is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-tls-'));
    const { cert, key } = testCertificate(dir);
    const to = await upstream();
    const store = tempStorePath();
    const { alice } = await issueKeys(store, [{ name: 'alice' }]);
    const served = await serve(to, store, ['--tls-cert', cert, '--tls-key', key]);
    expect(served.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const dispatcher = new Agent({ connect: { ca: readFileSync(cert) } });
    const response = await fetchThrough(`${served.url}/v2/property/value?address=1+Main+St&zipcode=21201`, {
      headers: { authorization: basic('alice', alice!) },
      dispatcher,
    });
    expect(response.status).toBe(200);
    await dispatcher.close();
  });

  it("puts the account's credentials, other clients' items and stack traces in no answer and no log line", async () => {
    const to = await upstream({ latencyMs: [5, 5] });
    const store = tempStorePath();
    const { alice } = await issueKeys(store, [{ name: 'alice' }]);
    const served = await serve(to, store, ['--verbose', '--max-retries', '0']);
    const ask = (path: string, init: RequestInit = {}, secret = alice!) =>
      fetch(`${served.url}${path}`, {
        ...init,
        headers: { authorization: basic('alice', secret), ...(init.headers as Record<string, string>) },
      });
    const answers = [
      await ask('/v2/property/value', { method: 'POST', headers: json, body: JSON.stringify(homes(1, 3)) }),
      await ask('/v2/property/value?zipcode=21201'),
      await ask('/v2/property/value?address=1+Main+St&zipcode=21201', {}, 'wrong'),
      await ask('/v2/property/nowhere?zipcode=21201'),
      await ask('/v2/property/value', { method: 'POST', headers: json, body: '[{"address": ' }),
    ];
    // The service failing: its 500 page is the gateway's 502, in words of its own.
    await to.close();
    sandbox = undefined;
    answers.push(await ask('/v2/property/value?address=9+Elsewhere+Rd&zipcode=21201'));
    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 401, 404, 400, 502]);
    const seen = (await Promise.all(answers.map(async (answer) => `${JSON.stringify([...answer.headers])}${await answer.text()}`))).join(
      '\n',
    );
    const logged = served.output();
    const token = Buffer.from(`${ACCOUNT.key}:${ACCOUNT.secret}`).toString('base64');
    for (const text of [seen, logged]) {
      expect(text).not.toContain(ACCOUNT.secret);
      expect(text).not.toContain(ACCOUNT.key);
      expect(text).not.toContain(token);
      expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
    }
    // A request's items stay between its client and the service: the log names the key and the path.
    expect(logged).not.toContain('Confidential');
    expect(logged).toMatch(/ alice 127\.0\.0\.1 POST \/v2\/property\/value -> 200 items=3 from-store=0 /);
    expect(logged).not.toContain(alice!);
  });

  it('drains on SIGTERM: a request in flight is answered, then it stops taking any and exits 0', async () => {
    let arrived: () => void = () => undefined;
    const upstreamReached = new Promise<void>((resolve) => (arrived = resolve));
    const to = await upstream({
      latencyMs: [600, 600],
      sleep: (ms) => {
        arrived();
        return new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    const store = tempStorePath();
    const { alice } = await issueKeys(store, [{ name: 'alice' }]);
    const served = await serve(to, store);
    const inFlight = fetch(`${served.url}/v2/property/value`, {
      method: 'POST',
      headers: { ...json, authorization: basic('alice', alice!) },
      body: JSON.stringify(homes(1, 5)),
    });
    await upstreamReached;
    served.child.kill('SIGTERM');
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as unknown[]).length).toBe(5);
    expect(await served.exited).toBe(0);
    expect(served.output()).toMatch(/stopping: finishing the requests in flight\n.*\npropdata serve stopped/);
    await expect(fetch(`${served.url}/v2/property/value?address=1+Main+St&zipcode=21201`)).rejects.toThrow();
  });

  it('killed mid-request loses no paid answer: the retry, to the next gateway, gets it from the store', { timeout: 60_000 }, async () => {
    // 10 components a 5-second window: a POST of 20 is bought in two parts, a window apart.
    const to = await upstream({ rateLimits: [{ limit: 10, periodSeconds: 5 }] });
    const store = tempStorePath();
    const { alice } = await issueKeys(store, [{ name: 'alice' }]);
    const port = String(await freePort());
    const first = await serve(to, store, ['--port', port]);
    const body = JSON.stringify(homes(1, 20));
    const post = (url: string) =>
      fetch(`${url}/v2/property/value`, { method: 'POST', headers: { ...json, authorization: basic('alice', alice!) }, body });
    const lost = post(first.url).then(
      (response) => response.status,
      () => 'no answer',
    );
    // Killed once the first part is paid for and kept, while the second waits for the next window.
    const kept = new Sqlite(store, { readonly: true, fileMustExist: false });
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (to.usage().components < 10 || (kept.prepare('SELECT count(*) AS n FROM sections').get() as { n: number }).n < 10) return;
        clearInterval(poll);
        first.child.kill('SIGKILL');
        resolve();
      }, 5);
    });
    kept.close();
    expect(await lost).toBe('no answer');
    expect(to.usage().components).toBe(10);
    const second = await serve(to, store, ['--port', port]);
    const retried = await post(second.url);
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { meta: string }[]).map((chunk) => chunk.meta)).toEqual(homes(1, 20).map((home) => home.meta));
    expect(to.usage()).toMatchObject({ components: 20, chargedAgain: { sections: 0 } });
  });
});
