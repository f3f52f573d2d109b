import { describe, expect, it } from 'vitest';
import { credentialForms, innermostForms, mayHoldCredential, redactForms } from '../../src/client/credential-forms.js';

describe('credentialForms', () => {
  it('covers the token, the pair, the secret and a long key, plain, URL-encoded and JSON-escaped, longest first', () => {
    const forms = credentialForms('account-0042', 'p@ss"word');
    const token = Buffer.from('account-0042:p@ss"word').toString('base64');
    const redact = (text: string) => redactForms(text, forms);
    expect(redact(`Basic ${token}`)).toBe('Basic ****');
    expect(redact(`got ${token}`)).toBe('got ****');
    expect(redact('https://account-0042:p%40ss%22word@example.com')).toBe('https://****:****@example.com');
    expect(redact('{"auth":"p@ss\\"word"}')).toBe('{"auth":"****"}');
    expect(redact('user account-0042')).toBe('user ****');
    expect(forms).toEqual([...forms].sort((a, b) => b.length - a.length));
  });

  it('leaves a short key alone: it is more likely a word in the message than an echo', () => {
    const forms = credentialForms('demo', 's3cret-value');
    expect(redactForms('the demo key was refused', forms)).toBe('the demo key was refused');
    expect(redactForms('demo:s3cret-value', forms)).toBe('****');
  });

  it('finds any form by searching for the innermost ones alone, and nothing in an honest answer', () => {
    for (const [key, secret] of [
      ['account-0042', 'p@ss"word/1'],
      ['sandbox', 'sandbox'],
      ['demo', '20240101'],
    ] as const) {
      const forms = credentialForms(key, secret);
      const innermost = innermostForms(forms);
      expect(innermost.length).toBeLessThan(forms.length);
      for (const form of forms) expect(mayHoldCredential(`[{"note":"${form}"}]`, innermost)).toBe(true);
      expect(mayHoldCredential('[{"address_info":{"address_full":"1 Main St"},"property/value":{"api_code":0}}]', innermost)).toBe(false);
    }
  });
});
