import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, findEndpoint, suggestEndpoints } from '../../src/catalog/index.js';

const SPEC = fileURLToPath(new URL('../fixtures/spec/service-api.md', import.meta.url));

/** Every `level/target` named in an endpoint heading (#### ...) of the spec. */
function specEndpoints(): string[] {
  const headings = readFileSync(SPEC, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('#### '));
  return headings.flatMap((heading) => heading.match(/\b(property|block)\/[a-z_]+/g) ?? []);
}

describe('endpoint catalog', () => {
  it('has every endpoint of the spec, and marks everything else beyond the spec', () => {
    const named = new Set(specEndpoints());
    expect(named.size).toBe(29 + 10);
    for (const name of named) expect(findEndpoint(name), name).toBeDefined();
    const spec = ENDPOINTS.filter((endpoint) => !endpoint.beyondSpec);
    const blockForms = spec.filter((endpoint) => endpoint.mirrors).map((endpoint) => endpoint.name);
    expect(spec.map((endpoint) => endpoint.name).filter((name) => !named.has(name))).toEqual(blockForms);
    for (const endpoint of ENDPOINTS.filter((candidate) => candidate.beyondSpec)) expect(endpoint.description).toMatch(/beyond the spec/);
  });

  it('declares each parameter once: every endpoint that takes property_type takes the same declaration', () => {
    const declarations = new Set(ENDPOINTS.flatMap((endpoint) => endpoint.params.filter((param) => param.name === 'property_type')));
    expect(declarations.size).toBe(1);
  });

  it("has the endpoints beyond the spec that clients of the real service call, the spec's mget examples among them", () => {
    for (const name of [
      'property/zip_details',
      'property/zip_hcri',
      'property/zip_hpi_forecast',
      'property/ltv',
      'block/histogram_beds',
      'block/value_ts',
      'zip/volatility',
      'msa/hpi_ts_historical',
      'property/msa_details',
      'property/block_value_ts_forecast',
      'block/component_mget',
      'zip/component_mget',
      'msa/component_mget',
    ]) {
      expect(findEndpoint(name)?.beyondSpec, name).toBe(true);
    }
  });

  it('offers the property-level form of every block target, with the same result shape', () => {
    for (const block of ENDPOINTS.filter((endpoint) => endpoint.level === 'block' && !endpoint.mget)) {
      const form = findEndpoint(`property/block_${block.target}`);
      expect(form?.result).toEqual(block.result);
      expect(form?.level).toBe('property');
    }
  });

  it('carries the parameter rules of the spec', () => {
    const adjusted = findEndpoint('property/value_details_adjusted')!;
    expect(adjusted.requireOneOf).toEqual(['add_beds', 'add_baths', 'add_sqft', 'add_pools']);
    expect(adjusted.params.find((p) => p.name === 'add_pools')?.allowed).toEqual([1]);
    expect(adjusted.params.find((p) => p.name === 'add_baths')?.step).toBe(0.5);
    expect(findEndpoint('property/value_hpi_adjusted')!.params.find((p) => p.name === 'adjust_to_date')?.firstOfMonth).toBe(true);
    expect(findEndpoint('block/hcri')!.params[0]?.enum).toEqual(['SFD', 'TH', 'CND', 'INC', 'MFH']);
  });

  it('finds endpoints by kebab-case and versioned names and suggests near misses', () => {
    expect(findEndpoint('property/value-within-block')?.name).toBe('property/value_within_block');
    expect(findEndpoint('v2/block/crime')?.name).toBe('block/crime');
    expect(suggestEndpoints('property/valeu')).toContain('property/value');
  });
});
