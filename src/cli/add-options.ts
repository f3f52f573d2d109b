import { Option, type Command } from 'commander';
import type { OptionDef } from './options.js';

/** Attaches options declared as data to a command. */
export function addOptions(command: Command, definitions: readonly OptionDef[]): Command {
  for (const definition of definitions) {
    const option = new Option(definition.flags, definition.description);
    if (definition.parse) option.argParser(definition.parse as (value: string, previous: unknown) => unknown);
    if (definition.defaultValue !== undefined) option.default(definition.defaultValue);
    command.addOption(option);
  }
  return command;
}
