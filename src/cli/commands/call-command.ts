import type { Command } from 'commander';
import { findEndpoint, LEVELS, type Endpoint, type Level } from '../../catalog/index.js';
import { UsageError } from '../../errors/index.js';
import { nearest } from '../../catalog/nearest.js';
import { addOptions } from '../add-options.js';
import { identifierOptions, paramOptions } from '../options.js';
import { singleEndpointTarget, type QueryTarget } from '../../catalog/query-target.js';
import type { QueryOptions } from '../run-query.js';
import type { CommandContext } from './command-context.js';
import { QUERY_OPTIONS } from './query-options.js';

const PATH = /^(v2|v3)\/([a-z_]+)\/([a-z0-9_-]+)$/;

/**
 * Any `<version>/<level>/<target>`, including paths the catalog does not describe (v3 targets,
 * zip/msa/... levels): parameters go through as given and the result is passed on untouched.
 */
export function callTarget(path: string, options: QueryOptions): QueryTarget {
  const match = PATH.exec(path.trim().replace(/^\/+/, ''));
  if (!match) throw new UsageError(`"${path}" is not an endpoint path: give <version>/<level>/<target>, e.g. v3/property/hoa_est`);
  const [, version, level, rawTarget] = match as unknown as [string, 'v2' | 'v3', string, string];
  if (!(LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`unknown level "${level}"; did you mean ${nearest(level, LEVELS).join(', ') || LEVELS.join(', ')}?`, 'E_UNKNOWN_LEVEL');
  }
  const target = rawTarget.replace(/-/g, '_');
  const known = findEndpoint(`${level}/${target}`);
  if (known && known.version === version) return singleEndpointTarget(known);
  const given = Object.keys(options.param ?? {});
  const endpoint: Endpoint = {
    name: `${level}/${target}`,
    version,
    level: level as Level,
    target,
    description: 'not in the catalog',
    params: given.map((name) => ({ name, type: 'string', description: 'passed through' })),
    price: 0,
  };
  return { ...singleEndpointTarget(endpoint), sections: [] };
}

export function registerCallCommand(program: Command, context: CommandContext): void {
  const command = program
    .command('call')
    .argument('<path>', 'endpoint path <version>/<level>/<target>, e.g. v3/property/hoa_est or v2/zip/details')
    .description('call any endpoint path, including ones the catalog does not describe')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ propdata call v3/property/hoa_est --address "43 Valmonte Plaza" --zipcode 90274',
        '  $ propdata call v2/zip/details --zipcode 90274 --param months=12',
      ].join('\n'),
    );
  addOptions(command, [...identifierOptions([...LEVELS]), ...paramOptions([]), ...QUERY_OPTIONS]);
  command.action(async (path: string, options: QueryOptions) => {
    // Loaded when a query runs: building the command tree for --help does not need it.
    const { runQuery } = await import('../run-query.js');
    context.exitCode = await runQuery(callTarget(path, options), options, context);
  });
}
