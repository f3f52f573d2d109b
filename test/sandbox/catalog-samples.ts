import { itemRequirements, type Endpoint, type Param } from '../../src/catalog/index.js';

/** A valid value for a parameter, read from its catalog definition. */
export function sampleValue(param: Param): string | number {
  if (param.enum) return param.enum[0]!;
  if (param.allowed) return param.allowed[0]!;
  switch (param.type) {
    case 'date':
      return '2024-01-01';
    case 'int':
    case 'number':
      return Math.max(1, param.min ?? 1);
    case 'string':
      return 'x';
  }
}

/** The parameters an endpoint cannot do without, by the catalog's item rule: required ones and the first of a require-one-of set. */
export function neededParams(endpoint: Endpoint): Record<string, string | number> {
  const names = itemRequirements(endpoint.level, [endpoint])
    .filter((requirement) => requirement.kind !== 'identifier')
    .map((requirement) => requirement.anyOf[0]);
  const needed = endpoint.params.filter((param) => names.includes(param.name));
  return Object.fromEntries(needed.map((param) => [param.name, sampleValue(param)]));
}
