import { describe, expect, it } from 'vitest';
import { parseBaseUrl } from '../../src/config/connection.js';
import { runMain } from '../helpers/run-main.js';

function messageOf(text: string): string {
  try {
    parseBaseUrl(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} was accepted`);
}

describe('a base URL with user info', () => {
  it('never shows the user info in a message, whether or not the URL parses', () => {
    for (const text of [
      'http://k:S3cr3t@127.0.0.1:99999',
      'https://k:S3cr3t@api.example.com',
      'http://k:S3cr3t@api.example.com',
      'https://k:S3/cr3t@api.example.com',
      'https://k:S3cr@3t@api example.com',
      'ftp://k:S3cr3t@api.example.com',
      'k:S3cr3t@api.example.com',
    ]) {
      const message = messageOf(text);
      expect(message).not.toContain('S3');
      expect(message).not.toContain('k:S');
    }
    expect(messageOf('http://k:S3cr3t@127.0.0.1:99999')).toBe(
      'base URL "http://****@127.0.0.1:99999" is not a URL: give it as https://host[/path]',
    );
  });

  it('is kept out of stderr when given as --base-url', async () => {
    const result = await runMain([
      'property',
      'value',
      '--slug',
      'a',
      '--key',
      'k',
      '--secret',
      'x',
      '--base-url',
      'http://k:S3cr3t@127.0.0.1:99999',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not a URL/);
    expect(result.stderr).not.toContain('S3cr3t');
  });
});
