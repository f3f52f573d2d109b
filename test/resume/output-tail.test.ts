import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanOutputTail } from '../../src/resume/output-tail.js';

function file(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'propdata-tail-')), 'out');
  writeFileSync(path, content);
  return path;
}

describe('scanOutputTail', () => {
  it('counts complete CSV records after the header, quoted newlines included', async () => {
    const content = 'a,_row\n"x\ny",1\nz,2\n';
    expect(await scanOutputTail(file(content), 'csv')).toEqual({ records: 2, hasHeader: true, completeBytes: content.length });
  });

  it('cuts a torn last CSV record, even one torn inside quotes after a newline', async () => {
    const whole = 'a,_row\nx,1\n';
    expect(await scanOutputTail(file(`${whole}y,`), 'csv')).toMatchObject({ records: 1, completeBytes: whole.length });
    expect(await scanOutputTail(file(`${whole}"y\n`), 'csv')).toMatchObject({ records: 1, completeBytes: whole.length });
  });

  it('knows a file with no complete header', async () => {
    expect(await scanOutputTail(file('a,_r'), 'csv')).toEqual({ records: 0, hasHeader: false, completeBytes: 0 });
  });

  it('counts JSONL lines and cuts a torn one', async () => {
    const whole = '{"_row":1}\n{"_row":2}\n';
    expect(await scanOutputTail(file(`${whole}{"_row":`), 'jsonl')).toMatchObject({ records: 2, completeBytes: whole.length });
  });
});
