import { CREDENTIAL_FLAGS, SAFER_SOURCES } from './credential-flags.js';

const CREDENTIALS_NOTE = `credentials: give them again, or use ${SAFER_SOURCES}`;

/** An argument as a POSIX shell reads it back: bare when nothing in it is special, else in single quotes. */
function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The options of `argv` without credentials (never shown, never kept) and without --resume, and its operands. */
function withoutCredentials(argv: readonly string[]): { kept: string[]; operands: readonly string[]; dropped: boolean } {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const operands = end === -1 ? [] : argv.slice(end);
  const kept: string[] = [];
  let dropped = false;
  for (let i = 0; i < options.length; i++) {
    const arg = options[i]!;
    const flag = arg.split('=', 1)[0]!;
    // Never printed, never kept: the command shown goes without them.
    if ((CREDENTIAL_FLAGS as readonly string[]).includes(flag)) {
      dropped = true;
      if (flag === arg) i += 1; // `--key VALUE`: the value goes too
    } else if (arg !== '--resume') {
      kept.push(arg);
    }
  }
  return { kept, operands, dropped };
}

/**
 * The command line that continues an interrupted run: `argv` with --resume (once), quoted for
 * copy and paste. Credentials are left out, not masked: a masked value would make the printed
 * command fail, and a real one does not belong on a screen or in a log; `note` then says how to
 * give them. Arguments after `--` are operands, kept as they are.
 */
export function resumeCommand(argv: readonly string[]): { command: string; note?: string } {
  const { kept, operands, dropped } = withoutCredentials(argv);
  const command = ['propdata', ...kept, '--resume', ...operands].map(quote).join(' ');
  return dropped ? { command, note: CREDENTIALS_NOTE } : { command };
}

/** A run as `propdata usage --by run` names it: its arguments (quoted, credentials left out), `property value --input a.csv --output b.csv`. */
export function commandLine(argv: readonly string[]): string {
  const { kept, operands } = withoutCredentials(argv);
  return [...kept, ...operands].map(quote).join(' ');
}
