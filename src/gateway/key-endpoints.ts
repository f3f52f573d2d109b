import { findEndpoint, LEVELS, suggestEndpoints, type Endpoint } from '../catalog/index.js';

/** `block/*`: every endpoint of a level. */
const WILDCARD = /^([a-z]+)\/\*$/;

/**
 * What `--endpoints` names, checked against the catalog: endpoint names as the service spells them
 * (`property/value`), or a level's wildcard (`block/*`). A list is refused whole, naming the entry
 * that is neither, so that a misspelt name never silently locks a key out of what it was meant for.
 */
export function parseKeyEndpoints(list: string): string[] {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('name at least one endpoint, e.g. property/value,block/*');
  for (const entry of entries) {
    const level = WILDCARD.exec(entry)?.[1];
    if (level !== undefined) {
      if (!(LEVELS as readonly string[]).includes(level)) throw new Error(`"${entry}": no level ${level}; levels are ${LEVELS.join(', ')}`);
      continue;
    }
    const endpoint = findEndpoint(entry);
    if (!endpoint || endpoint.name !== entry || endpoint.mget) {
      const close = suggestEndpoints(entry).filter((name) => !name.endsWith('/component_mget'));
      throw new Error(`"${entry}" is not an endpoint a key can be allowed${close.length > 0 ? `; did you mean ${close.join(', ')}?` : ''}`);
    }
  }
  return [...new Set(entries)];
}

/** The first of `sections` the key may not call (every one of an mget's components must be allowed), or undefined. */
export function forbiddenSection(allowed: readonly string[] | undefined, sections: readonly Endpoint[]): Endpoint | undefined {
  if (allowed === undefined) return undefined;
  return sections.find((endpoint) => !allowed.includes(endpoint.name) && !allowed.includes(`${endpoint.level}/*`));
}
