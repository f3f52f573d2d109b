import type { Command } from 'commander';
import { canonicalName, ENDPOINTS, findEndpoint } from '../../catalog/index.js';
import { nearest } from '../../catalog/nearest.js';
import { UsageError } from '../../errors/index.js';
import { COMMAND_LEVELS } from './command-levels.js';

/** `a`, `a or b`, `a, b or c`. */
const orList = (items: readonly string[]) =>
  items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}` : (items[0] ?? '');

/**
 * The endpoint commands a first word may have meant: `value` is `property value`, `details` is
 * one of four levels', and `property/value` (an endpoint's name) is `property value`.
 */
function endpointCommandsFor(word: string): string[] {
  const name = canonicalName(word);
  const named = name.includes('/') ? findEndpoint(name) : undefined;
  const endpoints = named ? [named] : ENDPOINTS.filter((endpoint) => endpoint.target === name);
  return endpoints
    .filter((endpoint) => !endpoint.mget && COMMAND_LEVELS.includes(endpoint.level))
    .map((endpoint) => `propdata ${endpoint.level} ${endpoint.target}`);
}

/**
 * The refusal of a first word that is no command. A target without its level is the likeliest
 * slip (`propdata value`, as the service's paths read), so that is suggested first; else the
 * commands spelled closest to it.
 */
export function unknownCommandError(word: string, program: Command): UsageError {
  const endpointCommands = endpointCommandsFor(word);
  const suggestions =
    endpointCommands.length > 0
      ? endpointCommands
      : nearest(
          word,
          program.commands.map((command) => command.name()),
        ).map((name) => `propdata ${name}`);
  const suggestion = suggestions.length > 0 ? `; did you mean ${orList(suggestions)}?` : '; see propdata --help';
  return new UsageError(`unknown command '${word}'${suggestion}`, 'E_UNKNOWN_COMMAND');
}
