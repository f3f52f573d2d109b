import { describe, expect, it } from 'vitest';
import { credentialForms } from '../../src/client/credential-forms.js';
import { redactAnswer } from '../../src/client/redact-answer.js';

describe('redactAnswer', () => {
  it('returns an answer without credentials as it came, the very same text', () => {
    const body = '[{"address_info":{"address_full":"1 Main St"},"property/value":{"api_code":0}}]';
    expect(redactAnswer(body, credentialForms('account-0042', 'secret-value'))).toBe(body);
  });

  it('redacts the token, the pair and the secret wherever they are echoed, and the JSON still reads', () => {
    const forms = credentialForms('account-0042', 'p@ss"word/1');
    const token = Buffer.from('account-0042:p@ss"word/1').toString('base64');
    const body = JSON.stringify([{ a: `Basic ${token}`, b: ['account-0042:p@ss"word/1'], c: { 'p@ss"word/1': 1 } }]);
    expect(JSON.parse(redactAnswer(body, forms))).toEqual([{ a: 'Basic ****', b: ['****'], c: { '****': 1 } }]);
    // PHP writes every "/" as "\/".
    const php = body.replaceAll('/', '\\/');
    expect(JSON.parse(redactAnswer(php, forms))).toEqual([{ a: 'Basic ****', b: ['****'], c: { '****': 1 } }]);
  });

  it('redacts only strings and names when a credential also matches outside them, so the answer still reads', () => {
    const forms = credentialForms('demo', '20240101');
    const body = '[{"sold":20240101,"note":"secret 20240101","20240101":true}]';
    expect(JSON.parse(redactAnswer(body, forms))).toEqual([{ sold: 20240101, note: 'secret ****', '****': true }]);
  });

  it('redacts a body that is not JSON as text', () => {
    const forms = credentialForms('account-0042', 'secret-value');
    expect(redactAnswer('<html>auth secret-value</html>', forms)).toBe('<html>auth ****</html>');
  });
});
