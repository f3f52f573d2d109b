/** The request timeouts, in a module of their own: option declarations read the defaults without loading undici. */
export interface Timeouts {
  connectMs: number;
  /**
   * The whole exchange, from sending to the body's last byte: a deadline, not an idle timer (a
   * server dripping a byte a second would otherwise hold a request forever). It also bounds
   * undici's own waits for the headers and between body chunks.
   */
  responseMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, responseMs: 60_000 };
