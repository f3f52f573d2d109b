import { withoutPassword } from '../config/database-url.js';
import { CREDENTIAL_FLAGS, SAFER_SOURCES } from './credential-flags.js';

const CREDENTIALS_NOTE = `credentials: give them again, or use ${SAFER_SOURCES}`;
const PASSWORD_NOTE = "the store's password: give it with PGPASSWORD or in ~/.pgpass";

/** An argument as a POSIX shell reads it back: bare when nothing in it is special, else in single quotes. */
function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The options of `argv` without credentials (never shown, never kept: a store's password included) and without --resume, and its operands. */
function withoutCredentials(argv: readonly string[]): {
  kept: string[];
  operands: readonly string[];
  dropped: boolean;
  droppedPassword: boolean;
} {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const operands = end === -1 ? [] : argv.slice(end);
  const kept: string[] = [];
  let dropped = false;
  let droppedPassword = false;
  for (let i = 0; i < options.length; i++) {
    const arg = options[i]!;
    const flag = arg.split('=', 1)[0]!;
    // Never printed, never kept: the command shown goes without them.
    if ((CREDENTIAL_FLAGS as readonly string[]).includes(flag)) {
      dropped = true;
      if (flag === arg) i += 1; // `--key VALUE`: the value goes too
    } else if (flag === '--store') {
      // A database URL's password goes; the URL stays (PGPASSWORD or ~/.pgpass give the password again).
      const value = flag === arg ? (options[++i] ?? '') : arg.slice(flag.length + 1);
      const shown = withoutPassword(value);
      droppedPassword ||= shown !== value;
      kept.push(...(flag === arg ? [flag, shown] : [`${flag}=${shown}`]));
    } else if (arg !== '--resume') {
      kept.push(arg);
    }
  }
  return { kept, operands, dropped, droppedPassword };
}

/**
 * The command line that continues an interrupted run: `argv` with --resume (once), quoted for
 * copy and paste. Credentials are left out, not masked: a masked value would make the printed
 * command fail, and a real one does not belong on a screen or in a log; `note` then says how to
 * give them. Arguments after `--` are operands, kept as they are.
 */
export function resumeCommand(argv: readonly string[]): { command: string; note?: string } {
  const { kept, operands, dropped, droppedPassword } = withoutCredentials(argv);
  const command = ['propdata', ...kept, '--resume', ...operands].map(quote).join(' ');
  const notes = [...(dropped ? [CREDENTIALS_NOTE] : []), ...(droppedPassword ? [PASSWORD_NOTE] : [])];
  return notes.length > 0 ? { command, note: notes.join('; ') } : { command };
}

/** A run as `propdata usage --by run` names it: its arguments (quoted, credentials left out), `property value --input a.csv --output b.csv`. */
export function commandLine(argv: readonly string[]): string {
  const { kept, operands } = withoutCredentials(argv);
  return [...kept, ...operands].map(quote).join(' ');
}
