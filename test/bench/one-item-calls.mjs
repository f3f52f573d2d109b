import { createClient } from '../../dist/library/index.js';

// One-item calls as a long-lived Node program makes them: one client per store given, each calling
// `property/value` for one item at a time, awaited before the next, every item a new one (each call
// buys). The clients take turns call by call, so that whatever else the machine does weighs on
// each alike. A warm-up of WARM_UP calls each first (the client's session opened, the store
// created, the JIT warm), then CALLS calls each timed. Prints one JSON line: per store, in the
// order given, the milliseconds a call took (median) and the client process's CPU a call (mean).
// Usage: node one-item-calls.mjs BASE_URL CALLS STORE... (STORE: `none`, a SQLite file or a postgres:// URL)
const [baseUrl, callsText, ...stores] = process.argv.slice(2);
const calls = Number(callsText);
const WARM_UP = 50;

// Without rate headers the client paces at `rate`: make it no limit at all.
const clients = stores.map((store) =>
  createClient({ baseUrl, key: 'sandbox', secret: 'sandbox', store: store === 'none' ? false : store, rate: 1_000_000_000 }),
);
// Each client its own street: every call buys, whichever store.
const home = (client, i) => ({ address: `${i} Main St ${client}`, zipcode: '90274' });
for (let i = 1; i <= WARM_UP; i++) for (const [c, client] of clients.entries()) await client.property.value(home(c, i));
const times = clients.map(() => []);
const cpu = clients.map(() => 0);
for (let i = 1; i <= calls; i++) {
  for (const [c, client] of clients.entries()) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await client.property.value(home(c, WARM_UP + i));
    times[c].push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu[c] += (used.user + used.system) / 1000;
  }
}
await Promise.all(clients.map((client) => client.close()));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(JSON.stringify({ calls, medianMs: times.map(median), cpuMs: cpu.map((total) => total / calls) }));
