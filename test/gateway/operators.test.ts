import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain, type MainResult } from '../helpers/run-main.js';
import { tempStorePath } from '../store/helpers/temp-store.js';
import { ADMIN_KEY, basic, gatewayPerTest } from './helpers.js';
import { parsePrometheusText, valueOf } from './prometheus-text.js';
import { spawnServe, testCertificate } from './serve-process.js';
import { BIN } from '../helpers/cli-process.js';
import { runShell } from '../helpers/cli-process.js';
import { codeBlocks, docSection } from '../helpers/docs.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { issueKeys } from './helpers.js';

const start = gatewayPerTest();
const json = { 'content-type': 'application/json' };
const homes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ address: `${from + i} Harbor St`, zipcode: '21201' }));

/** `propdata serve --sandbox` with `args`, stopped once it has said how it listens (or has failed to). */
function serveBriefly(args: string[], env: Record<string, string> = {}): Promise<MainResult> {
  const told = new AbortController();
  return runMain(['serve', '--sandbox', '--port', '0', '--store', tempStorePath(), ...args], {
    env,
    signal: told.signal,
    watch: ({ stdout }) => {
      if (stdout.includes('Stop it with')) told.abort();
    },
  });
}

describe('what operators expect of a gateway', () => {
  it('answers /healthz and /readyz without a key, and /readyz says which part cannot be reached', async () => {
    const { gateway, sandbox } = await start();
    const live = await fetch(`${gateway.url}/healthz`);
    expect([live.status, await live.text()]).toEqual([200, 'ok\n']);
    const ready = await fetch(`${gateway.url}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ready\n']);
    await sandbox.close();
    // Closed here already: the fixture's own close has nothing left to do.
    Object.assign(sandbox, { close: () => Promise.resolve() });
    const away = await fetch(`${gateway.url}/readyz`);
    expect(away.status).toBe(503);
    expect(await away.text()).toMatch(/^not ready\nthe service: 127\.0\.0\.1:\d+ cannot be reached: ECONNREFUSED\n$/);
    // Alive all the same: the process answers.
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });

  it('gives Prometheus its text at /metrics, behind the admin key: requests, purchases, spend, windows, waits', async () => {
    const { request, gateway } = await start({
      keys: [{ name: 'alice', budgetMonth: 5 }, { name: 'bob' }],
      sandbox: { rateLimits: [{ limit: 1_000, periodSeconds: 86_400 }] },
    });
    expect(
      (await request('alice', '/v2/property/value', { method: 'POST', headers: json, body: JSON.stringify(homes(1, 6)) })).status,
    ).toBe(200);
    expect((await request('bob', '/v2/property/value', { method: 'POST', headers: json, body: JSON.stringify(homes(4, 8)) })).status).toBe(
      200,
    );
    expect((await request('bob', '/v2/property/nothing_here?zipcode=21201')).status).toBe(404);
    expect((await request('alice', '/v2/property/value?address=1+Harbor+St&zipcode=21201', { secret: 'wrong' })).status).toBe(401);

    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/metrics`, { headers: { authorization: basic('alice', 'x') } })).status).toBe(401);
    const scraped = await fetch(`${gateway.url}/metrics`, { headers: { authorization: basic('admin', ADMIN_KEY) } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheusText(await scraped.text());
    const value = (name: string, labels: Record<string, string> = {}) => valueOf(families, name, labels);
    expect(value('propdata_gateway_requests_total', { key: 'alice', status: '200' })).toBe(1);
    expect(value('propdata_gateway_requests_total', { key: 'bob', status: '200' })).toBe(1);
    expect(value('propdata_gateway_requests_total', { key: 'bob', status: '404' })).toBe(1);
    // The wrong secret, and the two scrapes without the admin key.
    expect(value('propdata_gateway_requests_total', { key: '', status: '401' })).toBe(3);
    expect(value('propdata_gateway_components_bought_total', { key: 'alice' })).toBe(6);
    expect(value('propdata_gateway_components_bought_total', { key: 'bob' })).toBe(2);
    expect(value('propdata_gateway_items_from_store_total', { key: 'bob' })).toBe(3);
    expect(value('propdata_gateway_spend_month_usd', { key: 'alice' })).toBeCloseTo(1.5);
    expect(value('propdata_gateway_spend_month_usd', { key: 'bob' })).toBeCloseTo(0.5);
    expect(value('propdata_gateway_budget_month_usd', { key: 'alice' })).toBe(5);
    expect(value('propdata_gateway_budget_month_usd', { key: 'bob' })).toBeUndefined();
    expect(value('propdata_gateway_window_limit', { period_seconds: '86400' })).toBe(1_000);
    expect(value('propdata_gateway_window_used', { period_seconds: '86400' })).toBe(8);
    expect(families.get('propdata_gateway_request_duration_seconds')?.type).toBe('histogram');
    expect(value('propdata_gateway_request_duration_seconds_count')).toBe(6);
    expect(value('propdata_gateway_calls_in_flight')).toBe(0);
    expect(value('propdata_gateway_failed_logins_held')).toBe(0);
    expect(value('propdata_gateway_connections')).toBeGreaterThanOrEqual(1);
    expect(families.has('propdata_gateway_waiting_components')).toBe(true);
    expect(value('propdata_gateway_claims_held')).toBe(0);
  });

  it('counts the claims held by calls in flight, and none once they are answered', async () => {
    const { request, gateway } = await start({ sandbox: { latencyMs: [800, 800] } });
    const scrape = async () =>
      valueOf(
        parsePrometheusText(
          await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: basic('admin', ADMIN_KEY) } })).text(),
        ),
        'propdata_gateway_claims_held',
      );
    const inFlight = request('alice', '/v2/property/value', { method: 'POST', headers: json, body: JSON.stringify(homes(20, 24)) });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await scrape()).toBe(5);
    expect((await inFlight).status).toBe(200);
    expect(await scrape()).toBe(0);
  });

  it('the strict reader of the tests refuses what Prometheus would', () => {
    expect(() => parsePrometheusText('a 1')).toThrow(/line feed/);
    expect(() => parsePrometheusText('a 1\n')).toThrow(/no TYPE/);
    expect(() => parsePrometheusText('# TYPE a counter\na{k="x} 1\n')).toThrow(/not closed/);
    expect(() => parsePrometheusText('# TYPE a counter\na{k="\\t"} 1\n')).toThrow(/bad escape/);
    expect(() => parsePrometheusText('# TYPE a counter\na 1\na 2\n')).toThrow(/twice/);
    expect(() => parsePrometheusText('# TYPE a counter\n# TYPE b gauge\nb 1\na 1\n')).toThrow(/split/);
    expect(() => parsePrometheusText('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\n')).toThrow(/cumulative/);
    expect(valueOf(parsePrometheusText('# TYPE a gauge\na{k="x\\"y\\\\z\\n"} 1.5e3\n'), 'a', { k: 'x"y\\z\n' })).toBe(1500);
  });

  it('logs one JSON object a line with --log-format json, and names the client, never a secret', async () => {
    const told = new AbortController();
    let asked = false;
    const served = await runMain(
      ['serve', '--sandbox', '--port', '0', '--store', tempStorePath(), '--log-format', 'json', '--admin-key', 'adm-123'],
      {
        signal: told.signal,
        watch: ({ stdout }) => {
          const url = /listening on (http:\/\/\S+?),/.exec(stdout)?.[1];
          if (url && !asked) {
            asked = true;
            void fetch(`${url}/healthz`).then(() => fetch(`${url}/metrics`, { headers: { authorization: basic('admin', 'nope') } }));
          }
          if (stdout.includes('"path":"/metrics"')) told.abort();
        },
      },
    );
    expect(served.code).toBe(0);
    const lines = served.stdout.split('\n').filter((line) => line.startsWith('{'));
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        address: '127.0.0.1',
        method: 'GET',
        path: '/healthz',
        status: 200,
        elapsedMs: expect.any(Number),
      },
      { time: expect.any(String), address: '127.0.0.1', method: 'GET', path: '/metrics', status: 401, elapsedMs: expect.any(Number) },
    ]);
    expect(served.stdout + served.stderr).not.toContain('nope');
    // The admin key on the command line is readable by others, as --secret is: it says so.
    expect(served.stderr).toContain('--admin-key on the command line can be read by other users of this machine');
  });

  it('says where clients reach it on every interface, and takes 127.1 and ::ffff:127.0.0.1 for the loopback they are', async () => {
    const everywhere = await serveBriefly(['--host', '0.0.0.0', '--insecure-plain-http']);
    expect(everywhere.stdout).toMatch(new RegExp(`listening on every interface, port \\d+: clients use http://${hostname()}:\\d+`));
    for (const host of ['127.1', '::ffff:127.0.0.1']) {
      const loopback = await serveBriefly(['--host', host]);
      expect(loopback.code).toBe(0);
      expect(loopback.stderr).not.toContain('reachable from other machines');
      expect(loopback.stdout).toMatch(/listening on http:\/\/(127\.1|\[::ffff:127\.0\.0\.1\]):\d+,/);
    }
  });

  it('names the flag of a certificate or key TLS cannot use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-tls-'));
    const { cert, key } = testCertificate(dir);
    const other = testCertificate(mkdtempSync(join(tmpdir(), 'propdata-tls-')));
    const garbage = join(dir, 'garbage.key');
    writeFileSync(garbage, 'not a key\n');
    const bad = await serveBriefly(['--tls-cert', cert, '--tls-key', garbage]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining(`serve: --tls-key ${garbage} is not a PEM private key`)]);
    const mismatched = await serveBriefly(['--tls-cert', cert, '--tls-key', other.key]);
    expect(mismatched.code).toBe(2);
    expect(mismatched.stderr).toContain(`serve: --tls-key ${other.key} is not the private key of --tls-cert ${cert}`);
    const notCert = await serveBriefly(['--tls-cert', key, '--tls-key', key]);
    expect(notCert.stderr).toContain(`serve: --tls-cert ${key} is not a PEM certificate`);
  });

  it(
    "makes a certificate as the guide does, and Node, Python's requests and curl trust it as the guide says",
    { timeout: 60_000 },
    async () => {
      const [make, trust] = codeBlocks(docSection('docs/several-machines.md', 'A certificate, and clients that trust it'), 'sh');
      const dir = mkdtempSync(join(tmpdir(), 'propdata-cert-'));
      // The guide's host is gw.example.com; here the gateway is 127.0.0.1.
      const made = await runShell(make!.replace('subjectAltName=DNS:gw.example.com', 'subjectAltName=IP:127.0.0.1'), { cwd: dir, env: {} });
      expect(made.code, made.stderr).toBe(0);
      const sandbox = await startSandbox({ credit: 1_000 });
      const store = tempStorePath();
      const { alice } = await issueKeys(store, [{ name: 'alice' }]);
      const env = { PROPDATA_BASE_URL: sandbox.url, PROPDATA_API_KEY: sandbox.key, PROPDATA_API_SECRET: sandbox.secret };
      const served = await spawnServe(
        ['--store', store, '--port', '0', '--tls-cert', join(dir, 'gw.pem'), '--tls-key', join(dir, 'gw.key')],
        env,
      );
      try {
        const url = `${served.url}/v2/property/value?address=43+Valmonte+Plaza&zipcode=90274`;
        const lines = trust!.split('\n');
        const [node, python, curl] = [
          lines.find((line) => line.startsWith('NODE_EXTRA_CA_CERTS=gw.pem ')),
          lines.find((line) => line.startsWith('REQUESTS_CA_BUNDLE=gw.pem ')),
          lines.find((line) => line.startsWith('curl --cacert gw.pem ')),
        ];
        expect([node, python, curl].every(Boolean)).toBe(true);
        writeFileSync(
          join(dir, 'client.mjs'),
          `const r = await fetch(${JSON.stringify(url)}, { headers: { authorization: ${JSON.stringify(basic('alice', alice!))} } }); console.log(r.status);`,
        );
        writeFileSync(
          join(dir, 'client.py'),
          `import requests\nprint(requests.get(${JSON.stringify(url)}, auth=('alice', ${JSON.stringify(alice)})).status_code)\n`,
        );
        const commands = [
          `NODE_EXTRA_CA_CERTS=gw.pem node client.mjs`,
          `REQUESTS_CA_BUNDLE=gw.pem python3 client.py`,
          curl!
            .replace('https://gw.example.com:8443', served.url)
            .replace('ALICE_SECRET', alice!)
            .replace(/'$/, "' -s -o /dev/null -w '%{http_code}\\n'"),
          // Without it, each refuses the certificate.
          'node client.mjs || echo refused',
        ];
        for (const [command, expected] of [
          [commands[0], '200'],
          [commands[1], '200'],
          [commands[2], '200'],
          [commands[3], 'refused'],
        ] as const) {
          const ran = await runShell(command!, { cwd: dir, env: { PATH: process.env.PATH ?? '' } });
          expect(ran.stdout.trim().split('\n').at(-1), `${command}\n${ran.stderr}`).toBe(expected);
        }
        // propdata itself, not trusting it, says what to do.
        const untrusted = await runShell(`node ${JSON.stringify(BIN)} property value --address '43 Valmonte Plaza' --zipcode 90274`, {
          cwd: dir,
          env: {
            PROPDATA_BASE_URL: served.url,
            PROPDATA_API_KEY: 'alice',
            PROPDATA_API_SECRET: alice!,
            PROPDATA_HOME: dir,
            NODE_EXTRA_CA_CERTS: '',
          },
        });
        expect(untrusted.code).not.toBe(0);
        expect(untrusted.stderr).toContain('trust it with NODE_EXTRA_CA_CERTS=FILE.pem');
        expect(node).toContain('NODE_EXTRA_CA_CERTS=gw.pem propdata ');
        expect(python).toContain('REQUESTS_CA_BUNDLE=gw.pem python3 ');
      } finally {
        served.child.kill('SIGTERM');
        await served.exited;
        await sandbox.close();
      }
    },
  );
});
