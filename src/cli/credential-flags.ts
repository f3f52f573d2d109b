import type { Messages } from './io.js';

/**
 * Flags whose value is a credential: never printed, never kept, and while the command runs, there
 * for every user of the machine to read (`ps`, /proc/PID/cmdline).
 */
export const CREDENTIAL_FLAGS = ['--key', '--secret'] as const;

/** The safer ways to give credentials, for a warning's "what to do". */
export const SAFER_SOURCES =
  'the environment (PROPDATA_API_KEY, PROPDATA_API_SECRET), `propdata config set key|secret -` (from stdin), or --secret-file FILE';

/** The credential flags given in `argv` (before `--`: after it, words are operands), in either spelling (`--key K`, `--key=K`). */
export function credentialFlagsIn(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  return CREDENTIAL_FLAGS.filter((flag) => options.some((arg) => arg === flag || arg.startsWith(`${flag}=`)));
}

/** Once, on stderr, not with --quiet: credentials on the command line are readable by others while the command runs. */
export function warnOfCredentialFlags(argv: readonly string[], messages: Messages): void {
  const given = credentialFlagsIn(argv);
  if (given.length === 0) return;
  messages.info(
    `propdata: warning: ${given.join(' and ')} on the command line can be read by other users of this machine ` +
      `(ps, /proc/PID/cmdline) while it runs; use ${SAFER_SOURCES}`,
  );
}
