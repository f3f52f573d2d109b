// propdata as a library: the sandbox, one answer, then a file's rows through the store, twice.
// Run it from the clone after `npm ci`:  node samples/library.mjs
// (In a project of your own: `npm install <path to propdata-0.1.0.tgz>`, and the same imports.)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, readRows, startSandbox } from 'propdata';

const sandbox = await startSandbox();
const client = createClient({
  baseUrl: sandbox.url,
  key: sandbox.key,
  secret: sandbox.secret,
  // A store of its own, so the demo leaves yours alone; without `store`, the CLI's is used.
  store: join(mkdtempSync(join(tmpdir(), 'propdata-sample-')), 'propdata.db'),
  maxAge: 30 * 24 * 3600 * 1000,
});

try {
  // One item: the chunk as the service sends it. A section's api_code is data: 0 answered, 204 none.
  const chunk = await client.property.value({ address: '43 Valmonte Plaza', zipcode: '90274' });
  const value = chunk['property/value'];
  console.log('43 Valmonte Plaza:', value.api_code === 0 ? value.result.value.price_mean : 'no value');

  // A file's rows, in input order, one record each. The second night takes every answer from the store.
  for (const night of ['first night', 'second night']) {
    const run = client.mget(['property/value', 'property/rental_value']).batch(readRows(fileURLToPath(new URL('addresses.csv', import.meta.url))));
    let spent = 0;
    for await (const record of run) {
      spent += record.cost.usd;
      if (record.status !== 'ok') console.log(`  row ${record.row}: ${record.status}${record.error ? ` (${record.error})` : ''}`);
    }
    const summary = await run.summary();
    console.log(`${night}: ${summary.rowsRead} rows, ${summary.fromStore} from the store, ${spent.toFixed(2)} USD`);
  }
} finally {
  await client.close();
  await sandbox.close();
}
