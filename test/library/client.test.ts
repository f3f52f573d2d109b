import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  AuthError,
  BudgetReachedError,
  createClient,
  CreditExhaustedError,
  ItemFailedError,
  openRecordFile,
  QuotaWaitError,
  PropdataError,
  readRows,
  ServiceError,
  UsageError,
  type BatchRecord,
  type ClientOptions,
  type RunEvent,
} from '../../src/library/index.js';
import { openRecordFile as openWorkbookFile, readRows as readWorkbookRows } from '../../src/library/xlsx.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { chunkFor, scriptedServerPerTest, type Script, type ScriptedReply } from '../helpers/scripted-server.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { clientOn } from '../../src/library/create-client.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const sandboxes = sandboxPerTest();
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A client of the test's sandbox with a store of its own (unless `options` say otherwise). */
async function clientOf(options: ClientOptions = {}, sandbox?: RunningSandbox) {
  if (!sandbox) await sandboxes.start();
  const running = sandbox ?? sandboxes.current;
  const client = createClient({ baseUrl: running.url, key: running.key, secret: running.secret, store: tempStorePath(), ...options });
  closing.push(() => client.close());
  return { client, sandbox: running };
}

/** Items as a reader of a file or a database hands them over: one at a time, each after a turn of the event loop. */
async function* homes(count: number, from = 1) {
  for (let i = from; i < from + count; i++) {
    await setImmediate();
    yield { address: `${i} Main St`, zipcode: '90274' };
  }
}

async function collect<C>(records: AsyncIterable<BatchRecord<C>>): Promise<BatchRecord<C>[]> {
  const all: BatchRecord<C>[] = [];
  for await (const record of records) all.push(record);
  return all;
}

/** Reads `run` until it ends or throws, calling `each` on every record: the rows read, and what the loop threw. */
async function readUntilStopped<C>(run: AsyncIterable<BatchRecord<C>>, each: (record: BatchRecord<C>) => void = () => undefined) {
  const rows: number[] = [];
  try {
    for await (const record of run) {
      rows.push(record.row);
      each(record);
    }
  } catch (error) {
    return { rows, thrown: error };
  }
  return { rows, thrown: undefined };
}

const rowsOf = (records: readonly { row: number }[]) => records.map((record) => record.row);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('one item', () => {
  it('resolves to the chunk, typed by the catalog, and buys it once', async () => {
    const { client, sandbox } = await clientOf();
    const chunk = await client.property.value({ address: '43 Valmonte Plaza', zipcode: '90274' });
    const section = chunk['property/value'];
    expect(section.api_code).toBe(0);
    if (section.api_code === 0) expect(section.result.value.price_mean).toBeGreaterThan(0);
    expect(chunk.address_info.zipcode).toBe('90274');
    expect(sandbox.usage().components).toBe(1);
  });

  it('answers every level from the catalog, and an mget with both sections', async () => {
    const { client, sandbox } = await clientOf();
    const block = await client.block.crime({ block_id: '060376703022003' });
    expect(Object.keys(block)).toEqual(['block_info', 'block/crime']);
    const both = await client.mget(['property/value', 'property/rental_value'], { address: '43 Valmonte Plaza', zipcode: '90274' });
    expect(both['property/rental_value'].api_code).toBe(0);
    expect(sandbox.usage().byEndpoint).toMatchObject({
      'block/crime': { components: 1 },
      'property/value': { components: 1 },
      'property/rental_value': { components: 1 },
    });
    expect(sandbox.usage().components).toBe(3);
  });

  it('throws a UsageError for an item that cannot be sent, naming what is missing, and sends nothing', async () => {
    const { client, sandbox } = await clientOf();
    const refused = client.property.value({ zipcode: '90274' } as never);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(/address or a slug/);
    expect(sandbox.usage().requests).toBe(0);
  });

  it('throws the named error with its code when the service refuses the credentials, and never logs the secret', async () => {
    await sandboxes.start();
    const lines: string[] = [];
    const logger = { debug: (line: string) => lines.push(line), info: (line: string) => lines.push(line) };
    const { client } = await clientOf({ secret: 'wrong-secret-0123456789', logger }, sandboxes.current);
    const failure = await client.property.value({ address: '43 Valmonte Plaza', zipcode: '90274' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toBeInstanceOf(ServiceError);
    expect(failure).toBeInstanceOf(PropdataError);
    expect(failure).toMatchObject({ code: 'E_AUTH', status: 401, requestId: undefined });
    // The answer's own headers, as the sandbox sent them (it gives no request id, as the spec names none).
    expect((failure as AuthError).headers).toMatchObject({ 'content-length': '0', 'x-ratelimit-limit': '1000000' });
    expect(failure).not.toHaveProperty('exitCode');
    expect(lines.length).toBeGreaterThan(0);
    expect([...lines, (failure as Error).message].join('\n')).not.toContain('wrong-secret-0123456789');
  });

  it("throws a CreditExhaustedError with the 402's status and headers once the credit is spent", async () => {
    await sandboxes.start({ credit: 0 });
    const { client } = await clientOf({}, sandboxes.current);
    const failure = await client.property.value({ address: '43 Valmonte Plaza', zipcode: '90274' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CreditExhaustedError);
    expect(failure).toMatchObject({ code: 'E_CREDIT_EXHAUSTED', status: 402 });
    expect((failure as CreditExhaustedError).headers['content-type']).toMatch(/json/);
  });

  it('throws an ItemFailedError when the service keeps failing the item', async () => {
    await sandboxes.start({ failRate: 1 });
    const { client } = await clientOf({ maxRetries: 0 }, sandboxes.current);
    await expect(client.property.value({ address: '43 Valmonte Plaza', zipcode: '90274' })).rejects.toThrow(ItemFailedError);
  });
});

describe('a batch', () => {
  it('yields one record per item in input order from an async generator, invalid items as records, costs as billed', async () => {
    const { client, sandbox } = await clientOf({ batchSize: 7, concurrency: 3 });
    async function* mixed() {
      yield* homes(10);
      // What a typed caller cannot write, an untyped file can hold: it is a record, not a stop.
      yield { zipcode: '90274' } as unknown as { address: string; zipcode: string };
      yield* homes(10, 11);
    }
    const records = await collect(client.property.value.batch(mixed()));
    expect(rowsOf(records)).toEqual(range(1, 21));
    expect(records[10]).toMatchObject({ row: 11, status: 'invalid_input', input: { zipcode: '90274' } });
    expect(records[10]!.error).toMatch(/address or a slug/);
    const bought = records.reduce((sum, record) => sum + record.cost.components, 0);
    expect(bought).toBe(20);
    expect(sandbox.usage().components).toBe(20);
    const usd = records.reduce((sum, record) => sum + record.cost.usd, 0);
    expect(usd).toBeCloseTo(sandbox.usage().charged, 6);
  });

  it('reads rows through a column map, with parameters for every item', async () => {
    const { client, sandbox } = await clientOf();
    const rows = [
      { street: '43 Valmonte Plaza', zip: '90274', owner: 'A' },
      { street: '7500 Melrose Ave', zip: '90046', owner: 'B' },
    ];
    const run = client.property.value_details_adjusted.batch(rows, {
      columns: { street: 'address', zip: 'zipcode' },
      params: { add_beds: 1 },
    });
    const records = await collect(run);
    expect(records.map((record) => record.status)).toEqual(['ok', 'ok']);
    expect(records[1]!.input).toMatchObject({ owner: 'B' });
    expect(sandbox.usage().components).toBe(2);
  });

  it('throws the condition that stopped it after the records written before it, and its summary says so', async () => {
    const { client, sandbox } = await clientOf({ maxComponents: 25, batchSize: 10, concurrency: 1 });
    const run = client.property.value.batch(homes(60));
    const { rows, thrown } = await readUntilStopped(run);
    expect(thrown).toBeInstanceOf(BudgetReachedError);
    expect(sandbox.usage().components).toBeLessThanOrEqual(25);
    expect(rows).toEqual(range(1, rows.length));
    expect(rows.length).toBe(sandbox.usage().components);
    const summary = await run.summary();
    expect(summary).toMatchObject({ outcome: 'stopped', nextRow: rows.length + 1 });
  });

  it('stops sending on break: nothing goes out after the requests in flight, and a rerun of the job buys only the rest', async () => {
    const { client, sandbox } = await clientOf({ batchSize: 10, concurrency: 2 });
    const first = client.property.value.batch(homes(200), { job: 'nightly' });
    for await (const record of first) if (record.row === 15) break;
    const afterBreak = sandbox.usage().requests;
    expect(afterBreak).toBeLessThanOrEqual(4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sandbox.usage().requests).toBe(afterBreak);
    // The same job again: what the stopped run bought comes from the store, whatever maxAge says.
    const records = await collect(client.property.value.batch(homes(200), { job: 'nightly' }));
    expect(rowsOf(records)).toEqual(range(1, 200));
    expect(sandbox.usage().components).toBe(200);
    expect(sandbox.usage().chargedAgain.sections).toBe(0);
    expect(records.filter((record) => record.fromStore).length).toBe(afterBreak * 10);
  });

  it('the second night: a rerun with maxAge and an mget of one more endpoint buy nothing twice', async () => {
    const { client, sandbox } = await clientOf({ maxAge: 86_400_000 });
    await collect(client.property.value.batch(homes(30)));
    const again = await collect(client.property.value.batch(homes(30)));
    expect(again.every((record) => record.fromStore && record.cost.components === 0)).toBe(true);
    const more = await collect(client.mget(['property/value', 'property/rental_value']).batch(homes(30)));
    expect(more.every((record) => record.cost.components === 1 && !record.fromStore)).toBe(true);
    expect(more.every((record) => record.chunk?.['property/value'].api_code !== undefined)).toBe(true);
    expect(sandbox.usage().components).toBe(60);
    expect(sandbox.usage().chargedAgain.sections).toBe(0);
  });

  it('tells the caller of responses, progress and its end', async () => {
    const events: RunEvent[] = [];
    const { client } = await clientOf({ batchSize: 5, concurrency: 1, onEvent: (event) => events.push(event) });
    await collect(client.property.value.batch(homes(12)));
    expect(events.filter((event) => event.type === 'response').length).toBe(3);
    expect(events.at(-1)).toMatchObject({ type: 'end', summary: { outcome: 'completed', records: { ok: expect.any(Number) } } });
  });

  it("yields no record after the caller's signal aborts it, keeps what was in flight, and throws the reason", async () => {
    const { client, sandbox } = await clientOf({ batchSize: 100, concurrency: 4 });
    const stop = new AbortController();
    const run = client.property.value.batch(homes(2_000), { signal: stop.signal });
    // The engine has answered far more by row 50: they wait in the queue, and none is handed over.
    const { rows, thrown } = await readUntilStopped(run, (record) => {
      if (record.row === 50) stop.abort(new Error('enough'));
    });
    expect((thrown as Error).message).toBe('enough');
    expect(rows).toEqual(range(1, 50));
    expect((await run.summary()).outcome).toBe('interrupted');
    // Nothing bought is lost: a rerun with maxAge takes every answered item from the store.
    const bought = sandbox.usage().components;
    expect(bought).toBeGreaterThan(50);
    const again = await collect(client.property.value.batch(homes(bought), { maxAge: 3_600_000 }));
    expect(again.every((record) => record.fromStore)).toBe(true);
    expect(sandbox.usage().components).toBe(bought);
  });

  it('has no summary before its records are read', async () => {
    const { client } = await clientOf();
    await expect(client.property.value.batch(homes(1)).summary()).rejects.toThrow(/read first/);
  });
});

describe('per-call options', () => {
  const servers = scriptedServerPerTest();
  const HOME = { address: '43 Valmonte Plaza', zipcode: '90274' };
  const ANSWER = JSON.stringify([chunkFor(['property/value'])]);

  /** A client of the test's scripted server on a fake clock: backoffs and rate-limit waits take no time. */
  async function scripted(script: Script, options: ClientOptions = {}) {
    const clock = new FakeClock();
    const env = await servers.serve(script);
    const client = clientOn({ baseUrl: env.PROPDATA_BASE_URL, key: 'key-1', secret: 'secret-1', store: false, ...options }, clock);
    closing.push(() => client.close());
    return { client, server: servers.current, clock };
  }

  it("maxRetries: a call's own count of retries after a 5xx, for one item and for a batch", async () => {
    const { client, server } = await scripted(() => ({ status: 503, body: '{"message":"down"}' }));
    await expect(client.property.value(HOME, { maxRetries: 1 })).rejects.toThrow(ItemFailedError);
    expect(server.requests).toHaveLength(2);
    const records = await collect(client.property.value.batch([HOME], { maxRetries: 3 }));
    expect(records.map((record) => record.status)).toEqual(['error']);
    expect(server.requests).toHaveLength(2 + 4);
  });

  it("timeout: a call's own deadline for each response, longer or shorter than the client's", async () => {
    // Every answer comes 200 ms late (real time: the deadline is kept on the system's clock).
    const late = () => new Promise<ScriptedReply>((resolve) => setTimeout(() => resolve({ status: 200, body: ANSWER }), 200));
    const { client } = await scripted(late, { timeout: 50, maxRetries: 0 });
    await expect(client.property.value(HOME)).rejects.toThrow(/timed out after 0\.05 s/);
    const chunk = await client.property.value(HOME, { timeout: 10_000 });
    expect(chunk['property/value'].api_code).toBe(0);
    const records = await collect(client.property.value.batch([HOME, HOME], { timeout: 10_000 }));
    expect(records.map((record) => record.status)).toEqual(['ok', 'ok']);
  });

  it("maxWait: a call's own longest wait for the rate limit, beyond which it stops with a QuotaWaitError", async () => {
    // Two 429s whose window resets in five minutes, then answers.
    const refused = (_: unknown, index: number): ScriptedReply =>
      index < 2
        ? {
            status: 429,
            body: '{"message":"rate limit exceeded"}',
            headers: {
              'x-ratelimit-period': '3600',
              'x-ratelimit-limit': '10',
              'x-ratelimit-remaining': '0',
              'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 300),
            },
          }
        : { status: 200, body: ANSWER };
    const { client, server, clock } = await scripted(refused);
    const stopped = await client.property.value(HOME, { maxWait: 60_000 }).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(QuotaWaitError);
    expect(server.requests).toHaveLength(1);
    // The client's own maxWait (15 minutes) waits the five out, in virtual time, and is answered.
    const chunk = await client.property.value(HOME);
    expect(chunk['property/value'].api_code).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(clock.elapsed()).toBeGreaterThanOrEqual(295_000);
  });
});

describe('files', () => {
  const workbook = fileURLToPath(new URL('../../samples/homes.xlsx', import.meta.url));

  it("writes a batch's records as --output does: every input column kept, then the sections' columns", async () => {
    const { client } = await clientOf();
    const path = join(mkdtempSync(join(tmpdir(), 'propdata-library-')), 'out.csv');
    const file = await openRecordFile(path, { endpoint: 'property/value', columns: ['address', 'zipcode', 'owner'] });
    const rows = [
      { address: '43 Valmonte Plaza', zipcode: '90274', owner: 'José' },
      { zipcode: '90274', owner: 'nobody' },
    ];
    for await (const record of client.property.value.batch(rows, { columns: {} })) await file.write(record);
    await file.close();
    const [header, first, second] = readFileSync(path, 'utf8').trim().split('\n');
    expect(header).toMatch(/^address,zipcode,owner,_row,_status,_error,.*,property\/value\.value\.price_mean,/);
    expect(first).toMatch(/^43 Valmonte Plaza,90274,José,1,ok,,/);
    expect(second).toMatch(/^,90274,nobody,2,invalid_input,"item 2: needs an address or a slug \(its keys: zipcode, owner;/);
  });

  it('writes a workbook through propdata/xlsx, read back by the same', async () => {
    const { client } = await clientOf();
    const path = join(mkdtempSync(join(tmpdir(), 'propdata-library-')), 'out.xlsx');
    await expect(openRecordFile(path, { endpoint: 'property/value', columns: ['address'] })).rejects.toThrow(/propdata\/xlsx/);
    const file = await openWorkbookFile(path, { endpoint: 'property/value', columns: ['address', 'zipcode'] });
    const run = client.property.value.batch([{ address: '43 Valmonte Plaza', zipcode: '90274' }]);
    for await (const record of run) await file.write(record);
    await file.close(await run.summary());
    const back: Record<string, unknown>[] = [];
    for await (const row of readWorkbookRows(path)) back.push(row);
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ address: '43 Valmonte Plaza', zipcode: '90274', _status: 'ok' });
  });

  it('reads CSV rows as items; a workbook only through propdata/xlsx', async () => {
    const csv = fileURLToPath(new URL('../../samples/addresses.csv', import.meta.url));
    const rows: Record<string, unknown>[] = [];
    for await (const row of readRows(csv)) rows.push(row);
    expect(rows[0]).toMatchObject({ address: '405 DYER AVE', zipcode: '21136' });
    await expect(readRows(workbook).next()).rejects.toThrow(/propdata\/xlsx/);
    const first = await readWorkbookRows(workbook).next();
    expect(first.value).toHaveProperty('address');
  });
});

describe("at the service's pace", () => {
  /** A sandbox of 20 components a second and a client sharing one virtual clock with it. */
  async function paced(options: ClientOptions = {}) {
    const clock = new FakeClock();
    await sandboxes.start({ rateLimits: [{ limit: 20, periodSeconds: 1 }], now: () => clock.now() });
    const running = sandboxes.current;
    const client = clientOn({ baseUrl: running.url, key: running.key, secret: running.secret, store: tempStorePath(), ...options }, clock);
    closing.push(() => client.close());
    return { client, sandbox: running, clock };
  }

  it('paces a batch by the windows the service states: in order, no 429, the time the windows need', async () => {
    const { client, sandbox, clock } = await paced({ batchSize: 10, concurrency: 2 });
    const run = client.property.value.batch(homes(200));
    const records = await collect(run);
    expect(rowsOf(records)).toEqual(range(1, 200));
    expect((await run.summary()).rateLimitWaits).toBe(0);
    expect(sandbox.usage().components).toBe(200);
    // 200 components at 20 a second: ten windows, the first one free.
    expect(clock.elapsed()).toBeGreaterThanOrEqual(9_000);
    expect(clock.elapsed()).toBeLessThan(12_000);
  });

  it('an abort while the caller waits for the next record ends the wait: no record after it, nothing sent after what was in flight', async () => {
    const { client, sandbox, clock } = await paced({ batchSize: 10, concurrency: 2 });
    const stop = new AbortController();
    // Aborted as the fourth answer comes in, before its records are delivered: the loop is waiting for them.
    let responses = 0;
    const onEvent = (event: RunEvent) => {
      if (event.type === 'response' && ++responses === 4) stop.abort(new Error('closing time'));
    };
    const run = client.property.value.batch(homes(200), { signal: stop.signal, onEvent });
    let afterAbort = 0;
    const { rows, thrown } = await readUntilStopped(run, () => {
      if (stop.signal.aborted) afterAbort += 1;
    });
    expect((thrown as Error).message).toBe('closing time');
    expect(afterAbort).toBe(0);
    // At most the three answers before it were handed over; the fourth's, and any other in flight, are not.
    expect(rows.length).toBeLessThanOrEqual(30);
    const sent = sandbox.usage().components;
    expect(sent).toBeLessThanOrEqual(50);
    await clock.sleep(10_000);
    expect(sandbox.usage().components).toBe(sent);
    expect((await run.summary()).outcome).toBe('interrupted');
  });

  it('a break while the batch waits for its window sends nothing more, however long the caller then waits', async () => {
    const { client, sandbox, clock } = await paced({ batchSize: 10, concurrency: 2 });
    const run = client.property.value.batch(homes(200));
    for await (const record of run) if (record.row === 45) break;
    const sent = sandbox.usage().components;
    expect(sent).toBeLessThanOrEqual(45 + 2 * 10);
    await clock.sleep(10_000);
    expect(sandbox.usage().components).toBe(sent);
    expect((await run.summary()).outcome).toBe('interrupted');
  });
});
