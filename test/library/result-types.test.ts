import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { ENDPOINTS, isMgetComponentOf, type EndpointName as CatalogEndpointName } from '../../src/catalog/index.js';
import type {
  EndpointName,
  InfoTypes,
  ItemTypes,
  LevelOf,
  ParamTypes,
  ResultChunk,
  ResultTypes,
  Section,
} from '../../src/library/result-types.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { neededParams } from '../sandbox/catalog-samples.js';
import { addresses, call, dataSandbox, VALMONTE } from '../sandbox/http.js';
import { GENERATED_FILES, REGENERATE, render } from '../generate/generated-files.js';
import { typeErrors } from './type-check.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the files generated from the catalog', () => {
  it.each(GENERATED_FILES.map((file) => [file.path, file] as const))('%s is what the catalog makes it', async (path, file) => {
    const checkedIn = readFileSync(`${ROOT}${path}`, 'utf8');
    expect(checkedIn, `${path} differs from the catalog's rendering; if the change is intended, rewrite it: ${REGENERATE}`).toBe(
      await render(file, ROOT),
    );
  });
});

describe('src/library/result-types.ts', () => {
  // Checked by tsc (npm test's pretest), not at run time.
  it('types results as the catalog shapes them', () => {
    expectTypeOf<ResultTypes['property/value']['value']['price_mean']>().toEqualTypeOf<number>();
    expectTypeOf<ResultTypes['block/hcri']['property_type']>().toEqualTypeOf<'SFD' | 'TH' | 'CND' | 'INC' | 'MFH'>();
    expectTypeOf<ResultTypes['property/on_market']['has_price_considerations']>().toEqualTypeOf<true | null>();
    expectTypeOf<ResultTypes['property/census']['msa']>().toEqualTypeOf<string | null>();
    expectTypeOf<ResultTypes['property/sales_history']>().toBeArray();
    expectTypeOf<ResultTypes['property/value_details_adjusted']>().toEqualTypeOf<{
      adjusted_value_to: number;
      adjusted_beds_to?: number;
      adjusted_baths_to?: number;
      adjusted_sqft_to?: number;
      adjusted_pools_to?: number;
    }>();
    expectTypeOf<ResultTypes['property/block_crime']>().toEqualTypeOf<ResultTypes['block/crime']>();
    expectTypeOf<EndpointName>().toEqualTypeOf<Exclude<CatalogEndpointName, `${string}/component_mget`>>();
  });

  it('types a chunk by its level and endpoints', () => {
    type Value = ResultChunk<'property/value'>;
    expectTypeOf<Value['address_info']['zipcode']>().toEqualTypeOf<string | null>();
    expectTypeOf<Extract<InfoTypes['address_info'], { status: { match: true } }>['zipcode']>().toEqualTypeOf<string>();
    expectTypeOf<Value['property/value']>().toEqualTypeOf<Section<ResultTypes['property/value']>>();
    expectTypeOf<Extract<Value['property/value'], { api_code: 0 }>['result']>().toEqualTypeOf<ResultTypes['property/value']>();
    expectTypeOf<Value['meta']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<LevelOf<'property/block_crime'>>().toEqualTypeOf<'property'>();
    expectTypeOf<ResultChunk<'block/crime' | 'block/hcri'>['block_info']>().toEqualTypeOf<{ block_id: string }>();
    expectTypeOf<ResultChunk<'block/crime'>>().not.toHaveProperty('address_info');
    expectTypeOf<ResultChunk<'zip/details'>>().toHaveProperty('zipcode_info');
  });

  it('types items and parameters by what the catalog requires', () => {
    expectTypeOf({ slug: 'x' }).toExtend<ItemTypes['property']>();
    expectTypeOf({ zipcode: '90274', meta: 'row 1' }).not.toExtend<ItemTypes['property']>();
    expectTypeOf({ meta: 'row 1' }).not.toExtend<ItemTypes['block']>();
    expectTypeOf<ParamTypes['block/hcri']>().toEqualTypeOf<{ property_type?: 'SFD' | 'TH' | 'CND' | 'INC' | 'MFH' }>();
    expectTypeOf({ add_pools: 1 as const }).toExtend<ParamTypes['property/value_details_adjusted']>();
    expectTypeOf({}).not.toExtend<ParamTypes['property/value_details_adjusted']>();
    expectTypeOf<ParamTypes['property/component_mget']>().toEqualTypeOf<object>();
  });
});

/**
 * Batches of items (one key set each, as the service wants), by level: found, unknown to the
 * data yet answered, unresolved, with meta.
 */
const BATCHES: readonly (readonly ['property' | 'block' | 'zip' | 'msa', readonly Record<string, string>[]])[] = [
  ['property', [VALMONTE, ...addresses(3), { address: '12 NOMATCH Way', zipcode: '90274' }]],
  ['property', [{ ...VALMONTE, meta: 'row 7' }]],
  ['block', [{ block_id: '060376703022003' }, { block_id: '245102401001001' }]],
  ['zip', [{ zipcode: '90274' }, { zipcode: '00999' }]],
  [
    'msa',
    [
      { msa: '31080', meta: 'row 8' },
      { msa: '10001', meta: 'row 9' },
    ],
  ],
];

describe("the sandbox's answers", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox();
  });
  afterAll(() => sandbox.close());

  it("fit ResultChunk, every endpoint of every level's mget", async () => {
    const declarations = await Promise.all(
      BATCHES.map(async ([level, items], index) => {
        const components = ENDPOINTS.filter((endpoint) => isMgetComponentOf(level, endpoint));
        const names = components.map((endpoint) => endpoint.name);
        const reply = await call(sandbox, `/v2/${level}/component_mget`, {
          query: { components: names.join(','), ...Object.assign({}, ...components.map(neededParams)) },
          body: items,
        });
        expect(reply.status, reply.text).toBe(200);
        // One member a line, so that a complaint quotes the member it is about.
        const answer = JSON.stringify(reply.json, null, 1);
        return `export const batch${index}: ResultChunk<${names.map((name) => JSON.stringify(name)).join(' | ')}>[] = ${answer};`;
      }),
    );
    const code = [`import type { ResultChunk } from '../../src/library/result-types.js';`, ...declarations].join('\n');
    expect(typeErrors(code)).toEqual([]);
  });
});
