import type { Command } from 'commander';
import { ENDPOINTS, findEndpoint, isMgetComponent, suggestEndpoints, type Endpoint } from '../../catalog/index.js';
import { UsageError } from '../../errors/index.js';
import { addOptions } from '../add-options.js';
import { identifierOptions, paramOptions } from '../options.js';
import type { QueryTarget } from '../../catalog/query-target.js';
import type { QueryOptions } from '../run-query.js';
import type { CommandContext } from './command-context.js';
import { QUERY_OPTIONS } from './query-options.js';

const MGET = findEndpoint('property/component_mget')!;
/** Every property endpoint but mget itself can be a component, including property/block_<target>. */
const COMPONENTS = ENDPOINTS.filter(isMgetComponent);

/** `property/value,property/school` → the catalog endpoints, or a usage error naming the unknown one. */
export function parseComponents(list: string): Endpoint[] {
  const names = list.split(',').map((name) => name.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError('name at least one endpoint, e.g. property/value,property/school');
  return names.map((name) => {
    const endpoint = findEndpoint(name.includes('/') ? name : `property/${name}`);
    if (!endpoint || !isMgetComponent(endpoint)) {
      const suggestions = suggestEndpoints(name).filter((candidate) => candidate.startsWith('property/'));
      throw new UsageError(
        `"${name}" is not a property endpoint component_mget can fetch` +
          (suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : '; see "propdata endpoints --level property"'),
        'E_UNKNOWN_ENDPOINT',
      );
    }
    return endpoint;
  });
}

export function mgetTarget(components: readonly Endpoint[]): QueryTarget {
  return {
    path: `${MGET.version}/${MGET.name}`,
    level: 'property',
    sections: components,
    paramEndpoints: components,
    query: { components: components.map((endpoint) => endpoint.name).join(',') },
    componentsPerItem: components.length,
  };
}

export function registerMgetCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('mget')
    .argument('<endpoints>', 'comma-separated property endpoints, e.g. property/value,property/school')
    .description('several property endpoints for the same items in one call (component_mget)')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ propdata mget property/value,property/school --address "43 Valmonte Plaza" --zipcode 90274 --sandbox',
        '  $ propdata mget property/value,property/rental_value,property/school --input homes.jsonl --output out.jsonl',
        '',
        'Each item costs one component per endpoint named.',
      ].join('\n'),
    );
  addOptions(command, [...identifierOptions(['property']), ...paramOptions(COMPONENTS), ...QUERY_OPTIONS]);
  command.action(async (list: string, options: QueryOptions) => {
    // Loaded when a query runs: building the command tree for --help does not need it.
    const { runQuery } = await import('../run-query.js');
    context.exitCode = await runQuery(mgetTarget(parseComponents(list)), options, context);
  });
}
