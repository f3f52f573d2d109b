import { redactForms } from './credential-forms.js';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A parsed value with `forms` redacted from its strings and member names; numbers and the rest as they are. */
function redactParsed(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === 'string') return redactForms(value, forms);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const names = Object.keys(value);
  if (names.every((name) => redactForms(name, forms) === name)) return value;
  // fromEntries defines own members: a member named __proto__ stays data, as JSON.parse made it.
  return Object.fromEntries(names.map((name) => [redactForms(name, forms), (value as Record<string, unknown>)[name]]));
}

/**
 * An answer's body with the credentials (`forms`, credentialForms) replaced by `****` wherever
 * they occur: a server that echoes the Authorization header, or the key and secret it decodes
 * from it, into a chunk must not put them into an output file, stdout, the store or a log. Done
 * once on the raw text, before anything parses it, so every reader of the answer (the chunks,
 * the text a one-off prints, the text deduplication rereads) gets the same clean body; an answer
 * without a credential, which is every answer of an honest service, costs one search per form.
 *
 * Replacing text can break JSON where a form matched outside a string (a secret of digits inside
 * a number, one with a quote across two strings): the body is then parsed as received and only
 * its strings and member names are redacted, so the answer is kept rather than made unreadable.
 */
export function redactAnswer(body: string, forms: readonly string[]): string {
  const clean = redactForms(body, forms);
  if (clean === body || parses(clean) || !parses(body)) return clean;
  return JSON.stringify(JSON.parse(body, (_name, value: unknown) => redactParsed(value, forms)));
}
