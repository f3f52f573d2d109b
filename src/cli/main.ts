import { CommanderError } from 'commander';
import { PropdataError } from '../errors/index.js';
import type { CommandContext } from './commands/command-context.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { Messages, type Io } from './io.js';
import { warnOfCredentialFlags } from './credential-flags.js';
import { printGuide } from './guides.js';
import { buildProgram } from './program.js';

export type { Io } from './io.js';

/** Commander's own exits: help and version are successes, everything else is a usage error. */
function commanderExit(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return EXIT.ok;
  return EXIT.usage;
}

/**
 * `propdata help property value` is `propdata property value --help`: commander's own help
 * command looks at its first word only, and would show `property`'s help.
 */
function helpArgs(argv: readonly string[]): string[] {
  const words = argv.slice(1).filter((word) => !word.startsWith('-'));
  return argv[0] === 'help' && words.length > 1 ? [...words, '--help'] : [...argv];
}

/**
 * The whole CLI as a function: arguments and streams in, exit code out. Never throws: every
 * failure becomes one line on stderr (a stack trace only with --verbose) and its exit code.
 */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const messages = new Messages(io);
  messages.verbose = argv.includes('--verbose');
  messages.quiet = argv.includes('--quiet') || argv.includes('-q');
  warnOfCredentialFlags(argv, messages);
  const context: CommandContext = { io, messages, argv, exitCode: EXIT.ok };
  try {
    const program = buildProgram(context);
    const words = argv.slice(1).filter((word) => !word.startsWith('-'));
    const commands = program.commands.map((command) => command.name());
    if (argv[0] === 'help' && printGuide(words, commands, io)) return EXIT.ok;
    await program.parseAsync(helpArgs(argv), { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExit(error);
    if (error instanceof PropdataError) {
      messages.error(`propdata: ${error.message}`);
      if (messages.verbose && error.stack) messages.error(error.stack);
      return exitCodeFor(error);
    }
    const detail = error instanceof Error ? error.message : String(error);
    if (messages.verbose && error instanceof Error && error.stack) {
      messages.error(`propdata: unexpected error: ${detail}`);
      messages.error(error.stack);
    } else {
      messages.error(`propdata: unexpected error: ${detail}; run again with --verbose for details`);
    }
    return EXIT.fatal;
  }
}
