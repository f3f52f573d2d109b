/** Types for embedded-postgres.mjs, which the bench runs as plain JavaScript and the tests' global setup imports. */
export interface EmbeddedServer {
  /** postgres://user:password@127.0.0.1:port/postgres */
  url: string;
  /** The password in `url`: tests assert that nothing propdata prints or keeps holds it. */
  password: string;
  stop(): Promise<void>;
}

export function startEmbeddedPostgres(): Promise<EmbeddedServer>;
export function createDatabase(serverUrl: string, name: string): Promise<string>;
