import { describe, expect, it } from 'vitest';
import { accountId, accountOf, SANDBOX_ACCOUNT } from '../../src/store/account.js';

describe('accounts', () => {
  const base = new URL('https://api.example.com');

  it('is the base URL and a fingerprint of the key, never the key', () => {
    const id = accountId(base, 'live-key-123');
    expect(id).toMatch(/^https:\/\/api\.example\.com key:[0-9a-f]{16}$/);
    expect(id).not.toContain('live-key-123');
    expect(accountId(base, 'live-key-123')).toBe(id);
  });

  it('tells keys and services apart', () => {
    expect(accountId(base, 'test_live-key-123')).not.toBe(accountId(base, 'live-key-123'));
    expect(accountId(new URL('https://staging.example.com'), 'k')).not.toBe(accountId(base, 'k'));
    expect(accountId(new URL('https://api.example.com/'), 'k')).toBe(accountId(base, 'k'));
  });

  it('gives the built-in sandbox one account whatever its port', () => {
    expect(accountOf({ baseUrl: new URL('http://127.0.0.1:4101'), key: 'sandbox' }, true)).toBe(SANDBOX_ACCOUNT);
    expect(accountOf({ baseUrl: base, key: 'k' }, false)).toBe(accountId(base, 'k'));
  });
});
