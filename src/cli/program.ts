import { Command, Help } from 'commander';
import { registerCallCommand } from './commands/call-command.js';
import type { CommandContext } from './commands/command-context.js';
import { registerCompletionCommand } from './commands/completion-command.js';
import { registerConfigCommand } from './commands/config-command.js';
import { registerEndpointCommands } from './commands/endpoint-commands.js';
import { registerEndpointsCommand } from './commands/endpoints-command.js';
import { registerEstimateCommand } from './commands/estimate-command.js';
import { registerMgetCommand } from './commands/mget-command.js';
import { registerKeysCommand } from './commands/keys-command.js';
import { registerSandboxCommand } from './commands/sandbox-command.js';
import { registerServeCommand } from './commands/serve-command.js';
import { registerStoreCommand } from './commands/store-command.js';
import { registerUsageCommand } from './commands/usage-command.js';
import { unknownCommandError } from './commands/unknown-command.js';
import { commanderOption } from './add-options.js';
import { commanderMessage } from './commander-messages.js';
import { STACK_TRACE_OPTION } from './options.js';
import { HELP_WITH_DEFERRED_OPTIONS, whenOptionsAttached } from './deferred-options.js';
import { terminalWidth } from './io.js';
import { VERSION } from '../engine/version.js';

const DESCRIPTION = 'Batch lookups against the property data and analytics service.';

/** After the command list: never wrapped, so a command is never cut in two. */
const EXAMPLES = `
Examples:
  One item:  $ propdata property value --address "43 Valmonte Plaza" --zipcode 90274
  A file:    $ propdata property value --input homes.csv --output values.csv
  Try it:    add --sandbox to any command (local synthetic data, no account needed)
  Help:      $ propdata help property value
  Guides:    $ propdata help nightly    (propdata help guides lists them all)
  Complete:  $ source <(propdata completion bash)    (or zsh; fish: propdata completion fish | source)`;

/**
 * Help is wrapped to a terminal's width; written anywhere else (a pipe, a file, a pager) it is not
 * wrapped at all, as the reader's own program wraps it, and a command is never cut in two.
 */
const helpWidth = (stream: Parameters<typeof terminalWidth>[0]): number => terminalWidth(stream) ?? 10_000;

/**
 * A list of commands shows each by its name alone: an endpoint's kebab-case alias is accepted
 * (docs/reference.md), but `value_within_block|value-within-block` on each of 60 lines is noise.
 */
function subcommandTerm(this: Help, command: Command): string {
  const term = Help.prototype.subcommandTerm.call(this, command);
  return command.alias() ? term.replace(`${command.name()}|${command.alias()}`, command.name()) : term;
}

/** Every command that runs (one without subcommands) takes --verbose: main()'s "unexpected error" line suggests it whatever the command. */
function acceptVerbose(command: Command): void {
  for (const sub of command.commands) {
    if (sub.commands.length > 0) acceptVerbose(sub);
    else
      whenOptionsAttached(sub, () => {
        if (!sub.options.some((option) => option.long === '--verbose')) sub.addOption(commanderOption(STACK_TRACE_OPTION));
      });
  }
}

/** The command tree. Output and exits are routed through `context` so main() stays testable. */
export function buildProgram(context: CommandContext): Command {
  const program = new Command('propdata')
    .description(DESCRIPTION)
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.io.stdout.write(text),
      writeErr: (text) => context.io.stderr.write(text),
      getOutHelpWidth: () => helpWidth(context.io.stdout),
      getErrHelpWidth: () => helpWidth(context.io.stderr),
      outputError: (text, write) => write(commanderMessage(text)),
    })
    .configureHelp({ ...HELP_WITH_DEFERRED_OPTIONS, subcommandTerm })
    .addHelpText('after', EXAMPLES)
    .showSuggestionAfterError(true)
    // main() reads `help property value` as `property value --help`: commander's own looks at one word.
    .addHelpCommand(
      new Command('help')
        .argument('[command]')
        .usage('<command> [<subcommand>]')
        .description(
          'the same as <command> [<subcommand>] --help (propdata help property value); a guide: propdata help nightly, propdata help guides',
        )
        .helpOption(false),
    );
  registerEndpointCommands(program, context);
  registerMgetCommand(program, context);
  registerCallCommand(program, context);
  registerEndpointsCommand(program, context);
  registerEstimateCommand(program, context);
  registerUsageCommand(program, context);
  registerStoreCommand(program, context);
  registerConfigCommand(program, context);
  registerSandboxCommand(program, context);
  registerServeCommand(program, context);
  registerKeysCommand(program, context);
  registerCompletionCommand(program, context);
  acceptVerbose(program);
  // A first word that is no command: commander's own refusal cannot suggest `property value` for `value`.
  program.on('command:*', ([word]: string[]) => {
    throw unknownCommandError(word!, program);
  });
  return program;
}
