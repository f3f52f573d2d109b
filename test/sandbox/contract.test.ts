import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, INFO_SCHEMAS, LEVEL_SPECS, isMgetComponent, isMgetComponentOf, type Endpoint } from '../../src/catalog/index.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { schemaProblems } from '../helpers/schema-check.js';
import { neededParams } from './catalog-samples.js';
import { addresses, call, dataSandbox, VALMONTE } from './http.js';

/** Codes of the area levels' items: blocks, ZIPs (two the ZIP table does not know) and metro areas (two synthetic). */
const AREA_ITEMS: Readonly<Record<string, readonly string[]>> = {
  block: ['060376703022003', '245102401001001', '360610076001000', '482015432001012', '120860001011000', '530330053021004'],
  zip: ['90274', '21204', '10118', '00999', '89128', '99999'],
  msa: ['31080', '12580', '35620', '42660', '10001', '23391'],
};

/** Items for an endpoint's level, built from the catalog's level identifiers. */
function itemsFor(endpoint: Endpoint, count: number): Array<Record<string, string>> {
  if (LEVEL_SPECS[endpoint.level].rule === 'address-or-slug') return [VALMONTE, ...addresses(count - 1)];
  const identifier = LEVEL_SPECS[endpoint.level].identifiers[0]!.name;
  return AREA_ITEMS[endpoint.level]!.slice(0, count).map((code) => ({ [identifier]: code }));
}

/** What address_info.status.requested_item should echo: the item minus parameters and meta. */
function identifiersOf(endpoint: Endpoint, item: Record<string, unknown>): Record<string, unknown> {
  const names = new Set(LEVEL_SPECS[endpoint.level].identifiers.map((identifier) => identifier.name));
  return Object.fromEntries(Object.entries(item).filter(([key]) => names.has(key)));
}

function checkChunk(chunk: Record<string, unknown>, endpoints: readonly Endpoint[], sent: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const infoMember = LEVEL_SPECS[endpoints[0]!.level].infoMember!;
  expect(Object.keys(chunk)).toEqual([infoMember, ...endpoints.map((endpoint) => endpoint.name)]);
  const info = chunk[infoMember] as Record<string, any>;
  if (infoMember !== 'address_info') problems.push(...schemaProblems(INFO_SCHEMAS[infoMember], info, infoMember));
  else {
    expect(info.status.requested_item).toEqual(sent);
    if (info.status.match)
      problems.push(
        ...schemaProblems(INFO_SCHEMAS.address_info, { ...info, status: { ...info.status, requested_item: {} } }, 'address_info'),
      );
  }
  for (const endpoint of endpoints) {
    const section = chunk[endpoint.name] as { api_code: number; api_code_description: string; result: unknown };
    if (section.api_code === 204) {
      expect(section).toEqual({ api_code: 204, api_code_description: 'no content', result: null });
      continue;
    }
    expect(section.api_code).toBe(0);
    expect(section.api_code_description).toBe('ok');
    const found = schemaProblems(endpoint.result!, section.result);
    problems.push(...found.map((problem) => `${endpoint.name} ${problem}`));
  }
  return problems;
}

const DATA_ENDPOINTS = ENDPOINTS.filter((endpoint) => !endpoint.mget);

describe('every catalog endpoint, by GET and POST', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox();
  });
  afterAll(() => sandbox.close());

  it.each(DATA_ENDPOINTS.map((endpoint) => [endpoint.name, endpoint] as const))('%s', async (_name, endpoint) => {
    const path = `/${endpoint.version}/${endpoint.name}`;
    const params = neededParams(endpoint);
    const [first] = itemsFor(endpoint, 1);
    const get = await call(sandbox, path, { query: { ...first, ...params } });
    expect(get.status, get.text).toBe(200);
    expect(get.headers.get('content-type')).toMatch(/^application\/json/);
    expect(get.json).toHaveLength(1);
    expect(checkChunk(get.json[0], [endpoint], first!)).toEqual([]);

    const items = itemsFor(endpoint, 6).map((item) => ({ ...item, ...params }));
    const post = await call(sandbox, path, { body: items });
    expect(post.status, post.text).toBe(200);
    expect(post.json).toHaveLength(items.length);
    const problems = post.json.flatMap((chunk: Record<string, unknown>, index: number) =>
      checkChunk(chunk, [endpoint], identifiersOf(endpoint, items[index]!)),
    );
    expect(problems).toEqual([]);
  });

  it.each(['block', 'zip', 'msa'] as const)("answers every %s endpoint through that level's component_mget", async (level) => {
    const components = ENDPOINTS.filter((endpoint) => isMgetComponentOf(level, endpoint));
    const params = Object.assign({}, ...components.map(neededParams));
    const items = itemsFor(components[0]!, 3);
    const reply = await call(sandbox, `/v2/${level}/component_mget`, {
      query: { components: components.map((endpoint) => endpoint.name).join(','), ...params },
      body: items,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json.flatMap((chunk: Record<string, unknown>, index: number) => checkChunk(chunk, components, items[index]!))).toEqual([]);
  });

  it("gives property/zip_<target> and property/msa_<target> the result for the property's ZIP and metro area, property/ltv that of ltv_details", async () => {
    const property = (
      await call(sandbox, '/v2/property/component_mget', {
        query: { ...VALMONTE, components: 'property/zip_hpi_ts,property/msa_details,property/ltv,property/ltv_details' },
      })
    ).json[0];
    const zip = (await call(sandbox, '/v2/zip/hpi_ts', { query: { zipcode: '90274' } })).json[0];
    const msa = (await call(sandbox, '/v2/msa/details', { query: { msa: property.address_info.msa } })).json[0];
    expect(property['property/zip_hpi_ts']).toEqual(zip['zip/hpi_ts']);
    expect(property['property/msa_details']).toEqual(msa['msa/details']);
    expect(msa['msa/details'].result.msa_name).toBe('Los Angeles-Long Beach-Anaheim, CA');
    expect(property['property/ltv']).toEqual(property['property/ltv_details']);
  });

  it('answers every mget component, property forms of block targets included, in one chunk per item', async () => {
    const components = ENDPOINTS.filter(isMgetComponent);
    const params = Object.assign({}, ...components.map(neededParams));
    const items = addresses(5);
    const reply = await call(sandbox, '/v2/property/component_mget', {
      query: { components: components.map((endpoint) => endpoint.name).join(','), ...params },
      body: items,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toHaveLength(5);
    const problems = reply.json.flatMap((chunk: Record<string, unknown>, index: number) => checkChunk(chunk, components, items[index]!));
    expect(problems).toEqual([]);
  });

  it('gives property/block_<target> the same result as block/<target> for the property block', async () => {
    const property = (await call(sandbox, '/v2/property/block_crime', { query: VALMONTE })).json[0];
    const blockId = property.address_info.block_id;
    const block = (await call(sandbox, '/v2/block/crime', { query: { block_id: blockId } })).json[0];
    expect(block['block/crime']).toEqual(property['property/block_crime']);
  });

  it('answers 404 with a JSON message for paths outside the catalog', async () => {
    for (const path of [
      '/v2/property/nothing',
      '/v3/property/value',
      '/v3/zip/details',
      '/v2/reports/value_report',
      '/v2/state/details',
      '/',
    ]) {
      const reply = await call(sandbox, path, { query: VALMONTE });
      expect(reply.status, path).toBe(404);
      expect(typeof reply.json.message).toBe('string');
    }
  });

  it('echoes meta as a top-level member only for items that carry it', async () => {
    const reply = await call(sandbox, '/v2/property/value', {
      body: [
        { ...VALMONTE, meta: 'row-1' },
        { ...addresses(1)[0]!, meta: 'row-2' },
      ],
    });
    expect(reply.json.map((chunk: { meta: string }) => chunk.meta)).toEqual(['row-1', 'row-2']);
    expect(Object.keys(reply.json[0]).at(-1)).toBe('meta');
    expect(reply.json[0].address_info.status.requested_item).toEqual(VALMONTE);
    const without = await call(sandbox, '/v2/property/value', { body: [VALMONTE] });
    expect('meta' in without.json[0]).toBe(false);
  });
});
