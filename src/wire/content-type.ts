/**
 * The type of every JSON body, sent and answered, exactly: RFC 8259 defines no charset parameter
 * for it, and the service's own Python client (hc-api-python 0.7.1) compares the answer's
 * `Content-Type` with this string, handing back the raw response (no `.properties()`, no
 * exception for a 403) on any other.
 */
export const JSON_CONTENT_TYPE = 'application/json';

/** Whether a request's `Content-Type` is JSON, whatever its parameters and case. */
export function isJsonContentType(header: string | undefined): boolean {
  return (header ?? '').split(';')[0]!.trim().toLowerCase() === JSON_CONTENT_TYPE;
}
