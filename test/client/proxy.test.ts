import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createTlsServer } from 'node:tls';
import { connect as connectTcp, type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/library/index.js';
import { LibraryLog } from '../../src/library/library-log.js';
import { openGateway } from '../../src/gateway/open-gateway.js';
import { SYSTEM_CLOCK } from '../../src/throttle/clock.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli-process.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { runMain } from '../helpers/run-main.js';
import { envFor, WIDE_OPEN } from '../helpers/sandbox-per-test.js';
import { ADMIN_KEY, basic, issueKeys } from '../gateway/helpers.js';
import { testCertificate } from '../gateway/serve-process.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const VALUE = ['property', 'value', '--address', '43 Valmonte Plaza', '--zipcode', '90274', '--no-store'];
const HOMES = [
  { address: '43 Valmonte Plaza', zipcode: '90274' },
  { address: '7500 Melrose Ave', zipcode: '90046' },
  { address: '350 5th Ave', zipcode: '10118' },
];

let proxy: ForwardProxy;
let sandbox: RunningSandbox;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function start(): Promise<{ target: string }> {
  proxy = await startForwardProxy();
  sandbox = await startSandbox({ rateLimits: WIDE_OPEN, credit: 1_000_000 });
  closing.push(
    () => proxy.close(),
    () => sandbox.close(),
  );
  return { target: new URL(sandbox.url).host };
}

describe('HTTP_PROXY, HTTPS_PROXY and NO_PROXY (a forward proxy that tunnels with CONNECT)', () => {
  it("carry the CLI's one-off (node's http) through the proxy, and NO_PROXY or --no-proxy-env around it", async () => {
    const { target } = await start();
    const through = await runMain(VALUE, { env: { ...envFor(sandbox), HTTP_PROXY: proxy.url } });
    expect(through.code).toBe(0);
    expect(through.stdout).toContain('"property/value"');
    expect(proxy.tunnels).toEqual([target]);

    for (const [env, flags] of [
      [{ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' }, []],
      [{ http_proxy: proxy.url, no_proxy: `.example.com, ${target}` }, []],
      [{ HTTP_PROXY: proxy.url }, ['--no-proxy-env']],
    ] as const) {
      const around = await runMain([...VALUE, ...flags], { env: { ...envFor(sandbox), ...env } });
      expect(around.code).toBe(0);
    }
    expect(proxy.tunnels).toEqual([target]);
    expect(proxy.plain).toEqual([]);
  });

  it("carry the library's batches (undici's pool) through the proxy, unless `proxy: false` or NO_PROXY", async () => {
    const { target } = await start();
    const client = createClient({ env: { ...envFor(sandbox), HTTP_PROXY: proxy.url }, store: false, batchSize: 1 });
    closing.push(() => client.close());
    const statuses: string[] = [];
    for await (const record of client.property.value.batch(HOMES)) statuses.push(record.status);
    expect(statuses).toEqual(['ok', 'ok', 'ok']);
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(new Set(proxy.tunnels)).toEqual(new Set([target]));
    const tunnelled = proxy.tunnels.length;

    for (const options of [
      { proxy: false, env: { ...envFor(sandbox), HTTP_PROXY: proxy.url } },
      { env: { ...envFor(sandbox), HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } },
    ]) {
      const direct = createClient({ ...options, store: false });
      closing.push(() => direct.close());
      expect(await direct.property.value(HOMES[0]!)).toHaveProperty('property/value');
    }
    expect(proxy.tunnels).toHaveLength(tunnelled);
  });

  it('name the proxy when it cannot be reached, in the CLI and the library', async () => {
    await start();
    const dead = 'http://127.0.0.1:1';
    const cli = await runMain([...VALUE, '--max-retries', '0'], { env: { ...envFor(sandbox), HTTP_PROXY: dead } });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain(`through the proxy ${dead}; --no-proxy-env goes straight`);
    const client = createClient({ env: { ...envFor(sandbox), HTTP_PROXY: dead }, store: false, maxRetries: 0 });
    closing.push(() => client.close());
    const failure = await client.property.value(HOMES[0]!).catch((error: unknown) => error);
    expect((failure as Error).message).toContain(`through the proxy ${dead}; proxy: false goes straight`);
  });

  it("carry the gateway's requests to the service through the proxy", async () => {
    const { target } = await start();
    const storePath = tempStorePath();
    const { alice } = await issueKeys(storePath, [{ name: 'alice' }]);
    const gateway = await openGateway({
      connection: { baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, timeout: 60 },
      env: { HTTP_PROXY: proxy.url },
      log: new LibraryLog(undefined),
      storePath,
      host: '127.0.0.1',
      port: 0,
      adminKey: ADMIN_KEY,
      maxAgeMs: 30 * 86_400_000,
      maxWaitMs: 50_000,
      maxCostMonth: undefined,
      ratePerMinute: 250,
      maxRetries: 5,
      concurrency: 4,
      runLabel: 'serve proxy test',
      clock: SYSTEM_CLOCK,
    });
    closing.push(() => gateway.close(0));
    const answer = await fetch(`${gateway.url}/v2/property/value?address=43+Valmonte+Plaza&zipcode=90274`, {
      headers: { authorization: basic('alice', alice!) },
    });
    expect(answer.status).toBe(200);
    expect(new Set(proxy.tunnels)).toEqual(new Set([target]));
  });

  it('carry an https service through HTTPS_PROXY, TLS inside the tunnel and verified, the proxy password sent to it alone', async () => {
    await start();
    // The service over TLS: a TLS end in front of the sandbox, with a certificate the child trusts.
    const dir = mkdtempSync(join(tmpdir(), 'propdata-proxy-'));
    const { cert, key } = testCertificate(dir);
    const tls = createTlsServer({ cert: readFileSync(cert), key: readFileSync(key) }, (socket) => {
      const plain = connectTcp(Number(new URL(sandbox.url).port), '127.0.0.1');
      socket.pipe(plain).pipe(socket);
      plain.on('error', () => socket.destroy());
      socket.on('error', () => plain.destroy());
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    closing.push(() => new Promise((resolve) => tls.close(() => resolve())));
    const port = (tls.address() as AddressInfo).port;
    const withPassword = proxy.url.replace('http://', 'http://team:pr0xy-pa55@');
    const env = {
      PROPDATA_BASE_URL: `https://127.0.0.1:${port}`,
      PROPDATA_API_KEY: sandbox.key,
      PROPDATA_API_SECRET: sandbox.secret,
      PROPDATA_HOME: dir,
      HTTPS_PROXY: withPassword,
      NODE_EXTRA_CA_CERTS: cert,
    };
    const oneOff = await runCli([...VALUE, '--verbose'], { env });
    expect([oneOff.code, oneOff.stderr]).toEqual([0, expect.stringContaining(`through the proxy ${proxy.url}`)]);
    expect(oneOff.stdout).toContain('"property/value"');
    writeFileSync(join(dir, 'homes.csv'), `address,zipcode\n${HOMES.map((home) => `${home.address},${home.zipcode}`).join('\n')}\n`);
    const batch = await runCli(['property', 'value', '--input', join(dir, 'homes.csv'), '--output', join(dir, 'out.csv'), '--no-store'], {
      env,
    });
    expect([batch.code, batch.stderr]).toEqual([0, expect.any(String)]);
    expect(
      readFileSync(join(dir, 'out.csv'), 'utf8')
        .split('\n')
        .filter((line) => line !== ''),
    ).toHaveLength(4);
    expect(new Set(proxy.tunnels)).toEqual(new Set([`127.0.0.1:${port}`]));
    expect(new Set(proxy.authorizations)).toEqual(new Set([`Basic ${Buffer.from('team:pr0xy-pa55').toString('base64')}`]));
    expect(`${oneOff.stderr}${batch.stderr}`).not.toContain('pr0xy-pa55');
  });
});
