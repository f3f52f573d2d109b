import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors/index.js';

/** A value as a file or stdin holds it: one final line break dropped (what `echo` and editors add). */
export function valueFromText(text: string): string {
  return text.replace(/\r?\n$/, '');
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'it does not exist',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
};

/**
 * `--secret-file FILE`: the API secret from a file, so that it is not on the command line, where
 * every user of the machine can read it (`ps`, /proc/PID/cmdline) while the command runs.
 */
export function readSecretFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = (code && REASONS[code]) ?? (error as Error).message;
    throw new ConfigError(`cannot read --secret-file ${path}: ${reason}; give a file that holds the API secret`, 'E_SECRET_FILE');
  }
  const secret = valueFromText(text);
  if (secret === '') throw new ConfigError(`--secret-file ${path} is empty: it should hold the API secret`, 'E_SECRET_FILE');
  return secret;
}
