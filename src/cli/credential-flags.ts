import { holdsPassword } from '../config/database-url.js';
import type { Messages } from './io.js';

/**
 * Flags whose value is a credential: never printed, never kept, and while the command runs, there
 * for every user of the machine to read (`ps`, /proc/PID/cmdline).
 */
export const CREDENTIAL_FLAGS = ['--key', '--secret'] as const;

/** The safer ways to give credentials, for a warning's "what to do". */
export const SAFER_SOURCES =
  'the environment (PROPDATA_API_KEY, PROPDATA_API_SECRET), `propdata config set key|secret -` (from stdin), or --secret-file FILE';

/** `propdata serve`'s own secret, the status page's and the metrics' password, and where else it can come from. */
const ADMIN_KEY_FLAG = '--admin-key';
const SAFER_ADMIN_KEY_SOURCES = 'PROPDATA_ADMIN_KEY in the environment, or none (the gateway makes one each start and prints it)';

/** The safer ways to give a store's password. */
const SAFER_PASSWORD_SOURCES = 'PGPASSWORD or ~/.pgpass for the password, or PROPDATA_STORE for the whole URL';

/** The options of `argv`: the words before `--` (after it, words are operands). */
function optionsOf(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

/** The credential flags given in `argv` (before `--`: after it, words are operands), in either spelling (`--key K`, `--key=K`). */
function credentialFlagsIn(argv: readonly string[]): string[] {
  const options = optionsOf(argv);
  return CREDENTIAL_FLAGS.filter((flag) => options.some((arg) => arg === flag || arg.startsWith(`${flag}=`)));
}

/** Whether a `--store` in `argv` (`--store URL`, `--store=URL`) is a database URL holding a password. */
function storePasswordIn(argv: readonly string[]): boolean {
  const options = optionsOf(argv);
  return options.some((arg, i) =>
    arg === '--store' ? holdsPassword(options[i + 1] ?? '') : arg.startsWith('--store=') && holdsPassword(arg.slice(8)),
  );
}

/**
 * Once each, on stderr, not with --quiet: credentials on the command line, and a store's password
 * in a --store URL, are readable by others while the command runs. (From the environment or the
 * config, they are not.)
 */
export function warnOfCredentialFlags(argv: readonly string[], messages: Messages): void {
  const given = credentialFlagsIn(argv);
  const readable = '(ps, /proc/PID/cmdline) while it runs';
  if (given.length > 0)
    messages.info(
      `propdata: warning: ${given.join(' and ')} on the command line can be read by other users of this machine ${readable}; use ${SAFER_SOURCES}`,
    );
  if (optionsOf(argv).some((arg) => arg === ADMIN_KEY_FLAG || arg.startsWith(`${ADMIN_KEY_FLAG}=`)))
    messages.info(
      `propdata: warning: ${ADMIN_KEY_FLAG} on the command line can be read by other users of this machine ${readable}; use ${SAFER_ADMIN_KEY_SOURCES}`,
    );
  if (storePasswordIn(argv))
    messages.info(
      `propdata: warning: the password in --store can be read by other users of this machine ${readable}; use ${SAFER_PASSWORD_SOURCES}`,
    );
}
