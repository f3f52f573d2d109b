/**
 * Where the engine says what happens while it works: the CLI's stderr (cli/io.ts Messages), a
 * library caller's logger. Every line passes the redactor first: once credentials are added, no
 * form of them is ever printed, whatever message carries them.
 */
export interface EngineLog {
  /** A note for someone watching (the sandbox in use, a stop acknowledged). */
  info(text: string): void;
  /** Detail for --verbose: each request, each retry. */
  debug(text: string): void;
  /** From now on, these never appear in a line. */
  addCredentials(key: string, secret: string): void;
  redact(text: string): string;
}
