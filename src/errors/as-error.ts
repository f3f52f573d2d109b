/** What was thrown or given as a stop's reason, as an Error to throw on (anything else is wrapped, its text kept). */
export function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : JSON.stringify(reason));
}
