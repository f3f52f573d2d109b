import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { codeBlocks, readDoc, ROOT } from '../helpers/docs.js';

const run = promisify(execFile);

/** The library guide's example, as a reader copies it: its first js block. */
function guideExample(): string {
  const example = codeBlocks(readDoc('docs/library.md'), 'js')[0];
  if (example === undefined) throw new Error('docs/library.md has no js example');
  return example;
}

/**
 * The library's documentation runs as written: the guide's example and samples/library.mjs, each
 * by node in the clone (`propdata` resolves to the package itself, built by `npm test`'s pretest).
 */
describe('the library as documented', () => {
  it("runs the library guide's example against the sandbox", async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', guideExample()], { cwd: ROOT });
    const lines = stdout.trim().split('\n');
    expect(Number(lines[0])).toBeGreaterThan(0);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^1 ok \d/), expect.stringMatching(/^2 ok \d/), 'completed']);
  });

  it('runs samples/library.mjs: the second night takes every answer from the store and costs nothing', async () => {
    const { stdout } = await run(process.execPath, ['samples/library.mjs'], { cwd: ROOT });
    expect(stdout).toMatch(/^first night: 53 rows, 0 from the store, [1-9]\d*\.\d\d USD$/m);
    expect(stdout).toMatch(/^second night: 53 rows, 52 from the store, 0\.00 USD$/m);
  });
});
