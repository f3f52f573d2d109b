import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode } from '../child.mjs';
import { idealLastSend, parseWindows } from '../fixed-windows.mjs';
import { BIN, WORK } from '../paths.mjs';
import { startSandbox } from '../sandbox.mjs';
import { startServerProcess } from '../server-process.mjs';
import { startTrafficRecorder } from '../traffic-recorder.mjs';
import { jain } from './parallel.mjs';

const WINDOWS = '250/6';
const CLIENTS = 8;
/** Each client's items, and how far apart their first items are: each shares 50 with the next. */
const PER_CLIENT = 200;
const STRIDE = 150;
const FROM_STORE_REQUESTS = 40;
const LATENCY_SAMPLES = 2_000;
const IDLE_CONNECTIONS = 200;

const MIN_EFFICIENCY = 0.95;
const MIN_JAIN = 0.95;
const MIN_ITEMS_PER_SECOND = 5_000;
const MAX_ADDED_MS = 2;
const MAX_IDLE_GROWTH_MB = 16;

const basic = (key, secret) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
const homes = (first, count) => Array.from({ length: count }, (_, i) => ({ address: `${first + i} Bench Ave`, zipcode: '21201' }));

function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];
}

/** The gateway's resident memory now, from /proc (MB). */
function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** One request over `agent` (keep-alive), its body read: status and milliseconds. */
function call(agent, url, { method = 'GET', auth, body } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const sent = request(
      url,
      {
        method,
        agent,
        headers: { ...(auth ? { authorization: auth } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (answer) => {
        const parts = [];
        answer.on('data', (part) => parts.push(part));
        answer.on('end', () =>
          resolve({ status: answer.statusCode, headers: answer.headers, body: Buffer.concat(parts), ms: performance.now() - started }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** A client key of the gateway's store, issued as a person would: its secret. */
async function issue(store, name) {
  const { stdout } = await runNode([BIN, 'keys', 'add', name, '--json', '--store', store], { env: { PROPDATA_HOME: WORK } });
  return JSON.parse(stdout).secret;
}

/** A client sending its items in POSTs of 100, one at a time, waiting out any 429 as the service's own client would. */
async function client(gateway, auth, items) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let refused = 0;
  try {
    for (let at = 0; at < items.length; at += 100) {
      const body = JSON.stringify(items.slice(at, at + 100));
      for (;;) {
        const answer = await call(agent, `${gateway}/v2/property/value`, { method: 'POST', auth, body });
        if (answer.status === 200) break;
        if (answer.status !== 429) throw new Error(`gateway answered ${answer.status}: ${answer.body}`);
        refused += 1;
        const resetAt = Math.max(...String(answer.headers['x-ratelimit-reset']).split(',').map(Number)) * 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, resetAt - Date.now()) + 20));
      }
    }
  } finally {
    agent.destroy();
  }
  return { end: Date.now(), refused };
}

/** The 8 clients at once, through the gateway at 250/6: the account's pace, each client's share, and what was bought. */
async function fairness(gateway, secrets, recorder, sandbox) {
  const start = Date.now();
  const items = secrets.map((_, i) => homes(i * STRIDE + 1, PER_CLIENT));
  const ends = await Promise.all(secrets.map((secret, i) => client(gateway.url, basic(`c${i}`, secret), items[i])));
  const answered = recorder.exchanges.filter((exchange) => exchange.status === 200).sort((a, b) => a.at - b.at);
  const first = Math.min(...recorder.exchanges.map((exchange) => exchange.at));
  const lastSend = Math.max(...answered.map((exchange) => exchange.at));
  const ideal = idealLastSend(
    first,
    answered.map((exchange) => exchange.items),
    parseWindows(WINDOWS),
  );
  const usage = JSON.parse((await call(undefined, `${sandbox.url}/__sandbox/usage`, { auth: basic('sandbox', 'sandbox') })).body);
  return {
    efficiency: (ideal - first) / (lastSend - first),
    refusedToClients: ends.reduce((sum, end) => sum + end.refused, 0),
    upstream429: recorder.exchanges.filter((exchange) => exchange.status === 429 && !exchange.injected).length,
    fairness: jain(ends.map((end) => PER_CLIENT / ((end.end - start) / 1000))),
    unique: (CLIENTS - 1) * STRIDE + PER_CLIENT,
    bought: usage.components,
    chargedAgain: usage.chargedAgain.sections,
    wallS: (Math.max(...ends.map((end) => end.end)) - start) / 1000,
  };
}

/** Every client asking for items the store holds, two requests in flight each: items a second through the gateway. */
async function fromStore(gateway, secrets) {
  const started = performance.now();
  await Promise.all(
    secrets.flatMap((secret, i) =>
      [0, 1].map(async (lane) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (let n = lane; n < FROM_STORE_REQUESTS; n += 2) {
          const body = JSON.stringify(homes(((i * 7 + n * 13) % ((CLIENTS - 1) * STRIDE)) + 1, 100));
          const answer = await call(agent, `${gateway.url}/v2/property/value`, { method: 'POST', auth: basic(`c${i}`, secret), body });
          if (answer.status !== 200 || answer.headers['x-ratelimit-limit'] === undefined)
            throw new Error(`from the store: ${answer.status}`);
        }
        agent.destroy();
      }),
    ),
  );
  return (CLIENTS * FROM_STORE_REQUESTS * 100) / ((performance.now() - started) / 1000);
}

/** One item, one GET at a time on one connection: the gateway (from its store) against a bare JSON server. */
async function addedLatency(gateway, secret) {
  const bare = await startServerProcess([fileURLToPath(new URL('../reference/json-server.mjs', import.meta.url))]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const auth = basic('c0', secret);
  const path = `${gateway.url}/v2/property/value?address=1+Bench+Ave&zipcode=21201`;
  const body = JSON.stringify([{ address: '1 Bench Ave', city: 'Baltimore', state: 'MD', zipcode: '21201' }]);
  const through = [];
  const floor = [];
  try {
    for (let i = 0; i < 200; i++) await call(agent, path, { auth });
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      through.push((await call(agent, path, { auth })).ms);
      floor.push((await call(agent, bare.url, { method: 'POST', body })).ms);
    }
  } finally {
    agent.destroy();
    await bare.stop();
  }
  return { through: percentile(through, 0.5), floor: percentile(floor, 0.5), p99: percentile(through, 0.99) };
}

/** 200 clients connected and idle (one request each, then kept alive): the gateway's memory before, with them, and while they idle. */
async function idleConnections(gateway, secrets) {
  const before = rssMb(gateway.pid);
  const agent = new Agent({ keepAlive: true, maxSockets: IDLE_CONNECTIONS });
  const path = `${gateway.url}/v2/property/value?address=2+Bench+Ave&zipcode=21201`;
  await Promise.all(
    Array.from({ length: IDLE_CONNECTIONS }, (_, i) => call(agent, path, { auth: basic(`c${i % CLIENTS}`, secrets[i % CLIENTS]) })),
  );
  const sockets = Object.values(agent.freeSockets).reduce((sum, list) => sum + list.length, 0);
  const samples = [];
  for (let i = 0; i < 12; i++) {
    samples.push(rssMb(gateway.pid));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  agent.destroy();
  return { before, with: Math.max(...samples), drift: samples.at(-1) - samples[0], sockets };
}

/**
 * `propdata serve` in front of the sandbox (a recorder between them sees what it buys): 8 clients
 * at once with overlapping items at 250/6, then answers from its store, one GET's added latency,
 * and 200 idle connections. Every process is its own: the sandbox, the gateway, the bare server.
 */
export async function gateway() {
  const dir = join(WORK, `gateway-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const store = join(dir, 'gateway.db');
  const sandbox = await startSandbox(['--rate-limit', WINDOWS]);
  const recorder = await startTrafficRecorder(sandbox.url);
  const secrets = [];
  for (let i = 0; i < CLIENTS; i++) secrets.push(await issue(store, `c${i}`));
  const served = await startServerProcess(
    [BIN, 'serve', '--port', '0', '--store', store, '--admin-key', 'bench', '--quiet', '--base-url', recorder.url],
    { env: { PROPDATA_API_KEY: 'sandbox', PROPDATA_API_SECRET: 'sandbox', PROPDATA_HOME: dir }, listening: /listening on (\S+),/ },
  );
  let results;
  try {
    const fair = await fairness(served, secrets, recorder, sandbox);
    results = {
      fair,
      itemsPerSecond: await fromStore(served, secrets),
      latency: await addedLatency(served, secrets[0]),
      idle: await idleConnections(served, secrets),
    };
  } finally {
    await served.stop();
    await recorder.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return report(results);
}

function report({ fair, itemsPerSecond, latency, idle }) {
  const added = latency.through - latency.floor;
  const growth = idle.with - idle.before;
  return {
    measurements: [
      [
        `${CLIENTS} clients at ${WINDOWS}, ${PER_CLIENT} items each, ${fair.unique} distinct`,
        `${fair.wallS.toFixed(1)} s; bought ${fair.bought}, again ${fair.chargedAgain}`,
      ],
      ['429s: to clients / from the service (its windows)', `${fair.refusedToClients} / ${fair.upstream429}`],
      [
        `answers from the store, ${CLIENTS} clients × 2 requests of 100 in flight`,
        `${Math.round(itemsPerSecond).toLocaleString('en-US')} items/s`,
      ],
      [
        'one-item GET from the store: p50 through the gateway / a bare JSON server (p99)',
        `${latency.through.toFixed(2)} / ${latency.floor.toFixed(2)} ms (${latency.p99.toFixed(2)} ms)`,
      ],
      [
        `gateway RSS: before / with ${idle.sockets} idle connections (drift while idle)`,
        `${idle.before.toFixed(1)} / ${idle.with.toFixed(1)} MB (${idle.drift.toFixed(1)} MB)`,
      ],
    ],
    checks: [
      {
        name: 'combined vs ideal',
        value: fair.efficiency.toFixed(3),
        target: `≥ ${MIN_EFFICIENCY}`,
        pass: fair.efficiency >= MIN_EFFICIENCY,
      },
      { name: '429s reaching a client', value: String(fair.refusedToClients), target: '0', pass: fair.refusedToClients === 0 },
      {
        name: "Jain's index of the clients' throughputs",
        value: fair.fairness.toFixed(3),
        target: `≥ ${MIN_JAIN}`,
        pass: fair.fairness >= MIN_JAIN,
      },
      {
        name: 'items bought more than once',
        value: String(fair.chargedAgain + fair.bought - fair.unique),
        target: '0',
        pass: fair.chargedAgain === 0 && fair.bought === fair.unique,
      },
      {
        name: 'answers from the store through the gateway',
        value: `${Math.round(itemsPerSecond).toLocaleString('en-US')} items/s`,
        target: `≥ ${MIN_ITEMS_PER_SECOND.toLocaleString('en-US')}`,
        pass: itemsPerSecond >= MIN_ITEMS_PER_SECOND,
      },
      {
        name: 'p50 added latency, one-item GET',
        value: `${added.toFixed(2)} ms`,
        target: `≤ ${MAX_ADDED_MS} ms`,
        pass: added <= MAX_ADDED_MS,
      },
      {
        name: `memory with ${IDLE_CONNECTIONS} idle connections`,
        value: `+${growth.toFixed(1)} MB, drift ${idle.drift.toFixed(1)} MB`,
        target: `≤ +${MAX_IDLE_GROWTH_MB} MB, drift ≤ 1 MB`,
        pass: growth <= MAX_IDLE_GROWTH_MB && Math.abs(idle.drift) <= 1,
      },
    ],
  };
}
