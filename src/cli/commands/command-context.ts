import type { Io, Messages } from '../io.js';

/** What every command's action receives besides its options. */
export interface CommandContext {
  io: Io;
  messages: Messages;
  /** The arguments as given, for messages that show a command to run again. */
  argv: readonly string[];
  /** Set by the action: main() returns it as the exit code. */
  exitCode: number;
}
