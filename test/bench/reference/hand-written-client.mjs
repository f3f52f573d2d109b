import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import { Pool } from 'undici';

// What a user might write instead of propdata: CSV in, batches of 100 `property/value` POSTs,
// four in flight, one CSV line per row out in input order, the same columns propdata writes
// for this file. No validation, pacing, retries, deduplication, resume or report: the reference
// for what the wire work alone costs. Usage: node hand-written-client.mjs BASE_URL IN OUT
const [baseUrl, input, output] = process.argv.slice(2);
const BATCH = 100;
const IN_FLIGHT = 4;
const INFO = [
  'address_full',
  'slug',
  'address',
  'unit',
  'zipcode',
  'zipcode_plus4',
  'block_id',
  'blockgroup_id',
  'county_fips',
  'metrodiv',
  'msa',
  'city',
  'state',
  'geo_precision',
  'lat',
  'lng',
];
const STATUS = ['match', 'requested_item', 'details', 'changes', 'errors'];
const VALUE = ['price_mean', 'price_upr', 'price_lwr', 'fsd'];

const pool = new Pool(baseUrl, { connections: IN_FLIGHT });
const authorization = `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}`;
const out = createWriteStream(output);
const cell = (value) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : value);

async function lookup(rows) {
  const items = rows.map(({ address, city, state, zipcode }) => ({ address, city, state, zipcode }));
  const response = await pool.request({
    method: 'POST',
    path: '/v2/property/value',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(items),
  });
  const chunks = await response.body.json();
  return rows.map((row, i) => {
    const info = chunks[i].address_info ?? {};
    const section = chunks[i]['property/value'] ?? {};
    const value = section.result?.value ?? {};
    return [
      ...Object.values(row),
      i,
      'ok',
      '',
      ...INFO.map((name) => cell(info[name])),
      ...STATUS.map((name) => cell(info.status?.[name])),
      cell(section.api_code),
      ...VALUE.map((name) => cell(value[name])),
    ];
  });
}

// Requests in flight, oldest first: their lines are written in that order.
const queue = [];
async function writeOldest() {
  if (!out.write(stringify(await queue.shift()))) await once(out, 'drain');
}
let rows = [];
for await (const row of createReadStream(input).pipe(parse({ columns: true }))) {
  rows.push(row);
  if (rows.length < BATCH) continue;
  queue.push(lookup(rows));
  rows = [];
  if (queue.length >= IN_FLIGHT) await writeOldest();
}
if (rows.length > 0) queue.push(lookup(rows));
while (queue.length > 0) await writeOldest();
out.end();
await once(out, 'close');
await pool.close();
