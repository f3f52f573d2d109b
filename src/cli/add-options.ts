import { Option, type Command } from 'commander';
import type { OptionSpec } from '../options/option-spec.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A declaration as commander's Option: parser, choices, default and environment variable included. */
export function commanderOption(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  // choices() installs its own parser: a declaration has one or the other.
  if (spec.choices && spec.parse) throw new Error(`${spec.flags}: declare choices or a parser, not both`);
  if (spec.choices) option.choices(spec.choices);
  if (spec.parse) option.argParser(spec.parse);
  if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
  if (spec.env !== undefined) option.env(spec.env);
  return option;
}

/**
 * Attaches options declared as data to a command. Commander reads an option's environment
 * variable from process.env; main() runs on the environment it is given (`env`), so before the
 * action those values are read again from there, with the same precedence: a flag given wins,
 * then the variable, then the default. An empty variable counts as unset (docs/reference.md, Credentials):
 * `PROPDATA_API_KEY=` must leave the key to the next source, not set it to nothing. Every
 * command passes its Io's env.
 */
export function addOptions(command: Command, definitions: readonly OptionSpec[], env: Env): Command {
  const fromEnv: { spec: OptionSpec; option: Option }[] = [];
  for (const spec of definitions) {
    const option = commanderOption(spec);
    command.addOption(option);
    if (spec.env !== undefined) fromEnv.push({ spec, option });
  }
  if (fromEnv.length > 0) {
    command.hook('preAction', (_program, action) => {
      for (const { spec, option } of fromEnv) readEnv(action, spec, option, env);
    });
  }
  return command;
}

function readEnv(command: Command, spec: OptionSpec, option: Option, env: Env): void {
  const key = option.attributeName();
  const source = command.getOptionValueSource(key);
  if (source !== undefined && source !== 'default' && source !== 'env') return;
  const text = env[option.envVar!];
  if (text !== undefined && text !== '') {
    const value = option.required || option.optional ? (spec.parse ? spec.parse(text) : text) : true;
    command.setOptionValueWithSource(key, value, 'env');
  } else if (source === 'env') {
    command.setOptionValueWithSource(key, spec.defaultValue, 'default');
  }
}
