import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { SYSTEM_CLOCK, type Clock } from '../../src/throttle/clock.js';
import { FakeClock } from '../helpers/fake-clock.js';

type Chunk = Record<string, any>;

/**
 * A client as someone would write it from the service's documentation alone, knowing nothing of
 * the sandbox: a base URL that carries the version, Basic auth, GET for one item, POST for many,
 * chunks read by endpoint key, and a wait until X-RateLimit-Reset on 429 (on `clock`).
 */
class DocumentedClient {
  waits = 0;

  readonly #baseUrl: string;
  readonly #key: string;
  readonly #secret: string;
  readonly #clock: Clock;

  constructor(baseUrl: string, key: string, secret: string, clock: Clock = SYSTEM_CLOCK) {
    this.#baseUrl = baseUrl;
    this.#key = key;
    this.#secret = secret;
    this.#clock = clock;
  }

  async #send(method: 'GET' | 'POST', endpoint: string, query: Record<string, string>, body?: unknown): Promise<Chunk[]> {
    for (let attempt = 1; ; attempt += 1) {
      const response = await fetch(`${this.#baseUrl}/${endpoint}?${new URLSearchParams(query).toString()}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${this.#key}:${this.#secret}`).toString('base64')}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (response.status === 429 && attempt < 3) {
        const resetAt = Math.min(...response.headers.get('x-ratelimit-reset')!.split(',').map(Number));
        this.waits += 1;
        await this.#clock.sleep(Math.max(0, resetAt * 1000 - this.#clock.now()) + 20);
        continue;
      }
      if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
      return (await response.json()) as Chunk[];
    }
  }

  async getOne(endpoint: string, identifiers: Record<string, string>): Promise<Chunk> {
    const chunks = await this.#send('GET', endpoint, identifiers);
    if (chunks.length !== 1) throw new Error(`GET returned ${chunks.length} chunks`);
    return chunks[0]!;
  }

  postMany(endpoint: string, items: readonly object[], query: Record<string, string> = {}): Promise<Chunk[]> {
    return this.#send('POST', endpoint, query, items);
  }
}

const VALMONTE = { address: '43 Valmonte Plaza', zipcode: '90274' };
const HOMES = [
  { ...VALMONTE, meta: 'crm-1001' },
  { address: '7500 Melrose Ave', zipcode: '90046', meta: 'crm-1002' },
  { address: '1 NOMATCH Rd', zipcode: '21202', meta: 'crm-1003' },
  { address: '350 5th Ave', zipcode: '10118', meta: 'crm-1004' },
  { address: '77 Massachusetts Ave', zipcode: '02139', meta: 'crm-1005' },
];

describe('a client written for the real service', () => {
  let sandbox: RunningSandbox;
  let client: DocumentedClient;
  beforeAll(async () => {
    sandbox = await startSandbox();
    client = new DocumentedClient(`${sandbox.url}/v2`, sandbox.key, sandbox.secret);
  });
  afterAll(() => sandbox.close());

  it('GETs one item and reads its section by endpoint key', async () => {
    const chunk = await client.getOne('property/value', VALMONTE);
    expect(chunk.address_info.status.match).toBe(true);
    expect(chunk['property/value']).toMatchObject({ api_code: 0, api_code_description: 'ok' });
    expect(chunk['property/value'].result.value.price_mean).toBeGreaterThan(100_000);
    const block = await client.getOne('block/crime', { block_id: '060376703241005' });
    expect(block.block_info.block_id).toBe('060376703241005');
    expect(block['block/crime'].result.all.incidents).toBeGreaterThanOrEqual(0);
  });

  it('POSTs many with meta and gets one chunk per item, in order, meta echoed, the GET answer among them', async () => {
    const chunks = await client.postMany('property/value', HOMES);
    expect(chunks.map((chunk) => chunk.meta)).toEqual(HOMES.map((home) => home.meta));
    expect(chunks.map((chunk) => chunk.address_info.status.requested_item.address)).toEqual(HOMES.map((home) => home.address));
    expect(chunks[0]!['property/value']).toEqual((await client.getOne('property/value', VALMONTE))['property/value']);
    const unresolved = chunks.find((chunk) => chunk.meta === 'crm-1003')!;
    expect(unresolved.address_info.status.match).toBe(false);
    expect(unresolved['property/value']).toEqual({ api_code: 204, api_code_description: 'no content', result: null });
    const reversed = await client.postMany('property/value', [...HOMES].reverse());
    expect(reversed.map((chunk) => chunk.meta)).toEqual([...chunks].reverse().map((chunk) => chunk.meta));
    expect(reversed.map((chunk) => chunk['property/value'])).toEqual([...chunks].reverse().map((chunk) => chunk['property/value']));
  });

  it('POSTs component_mget with components in the query string and reads every section by its key', async () => {
    const components = ['property/value', 'property/rental_value', 'property/block_crime'];
    const chunks = await client.postMany('property/component_mget', HOMES.slice(0, 2), { components: components.join(',') });
    for (const [index, chunk] of chunks.entries()) {
      expect(chunk.meta).toBe(HOMES[index]!.meta);
      for (const name of components) expect(chunk[name].api_code, name).toBe(0);
      expect(chunk['property/rental_value'].result.price_mean).toBeLessThan(chunk['property/value'].result.value.price_mean);
    }
  });

  it('waits out a 429 until X-RateLimit-Reset and then gets its answer', async () => {
    // 5 components a second: the second POST of five items in the same second must wait its turn.
    // The sandbox and the client share one virtual clock, which stands at the start of a second
    // until the client waits.
    const clock = new FakeClock();
    const limited = await startSandbox({
      rateLimits: [
        { limit: 5, periodSeconds: 1 },
        { limit: 250, periodSeconds: 60 },
      ],
      now: () => clock.now(),
    });
    try {
      const patient = new DocumentedClient(`${limited.url}/v2`, limited.key, limited.secret, clock);
      const first = await patient.postMany('property/geocode', HOMES);
      const second = await patient.postMany('property/geocode', HOMES);
      expect(patient.waits).toBe(1);
      expect(second).toEqual(first);
    } finally {
      await limited.close();
    }
  });
});
