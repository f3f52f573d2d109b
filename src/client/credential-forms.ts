/** Below this length a value is more likely an ordinary word in a message than an echo of a credential. */
const MIN_SECRET_LENGTH = 3;
/** The key is the user name, not the credential: a short one ("demo") is left alone rather than garble messages. */
const MIN_KEY_LENGTH = 8;

const REDACTED = '****';

/**
 * Every spelling of the credentials a server, a proxy or a library error could echo back: the
 * Basic token (with or without "Basic "), the `key:secret` pair, the secret and a long key, each
 * also as URL-encoded and JSON-escaped text (a body without `message` is re-serialised; PHP's
 * JSON writes a token's `/` as `\/`). Longest first, so that a token is replaced whole before a
 * part of it could be.
 */
export function credentialForms(key: string, secret: string): string[] {
  const pair = `${key}:${secret}`;
  const plain = [Buffer.from(pair).toString('base64'), pair, secret, ...(key.length >= MIN_KEY_LENGTH ? [key] : [])];
  const forms = new Set<string>();
  for (const form of plain) {
    forms.add(form);
    forms.add(encodeURIComponent(form));
    const escaped = JSON.stringify(form).slice(1, -1);
    forms.add(escaped);
    forms.add(escaped.replaceAll('/', '\\/'));
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * The forms that hold no other form (the secret rather than the pair around it): a text that holds
 * none of them holds no form at all, so an answer is searched once for each of these, not once for
 * every form.
 */
export function innermostForms(forms: readonly string[]): string[] {
  return forms.filter((form) => !forms.some((other) => other !== form && form.includes(other)));
}

/** Whether `text` may hold a credential: whether any of `innermost` (innermostForms) occurs in it. */
export function mayHoldCredential(text: string, innermost: readonly string[]): boolean {
  for (const form of innermost) if (text.includes(form)) return true;
  return false;
}

/** `forms` (longest first) replaced by `****` wherever they occur. */
export function redactForms(text: string, forms: readonly string[]): string {
  let clean = text;
  for (const form of forms) if (clean.includes(form)) clean = clean.split(form).join(REDACTED);
  return clean;
}

/** Every form of every pair of credentials it has been given, out of any text: a log's last step before a line is written. */
export class Redactor {
  /** Longest first: a token goes whole before a secret inside it could be cut out of it. */
  #forms: string[] = [];

  add(key: string, secret: string): void {
    this.#forms = [...new Set([...this.#forms, ...credentialForms(key, secret)])].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    return redactForms(text, this.#forms);
  }
}
