import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { codeBlocks, readDoc, ROOT } from '../helpers/docs.js';

const run = promisify(execFile);

/** A page's example, as a reader copies it: its first js block. */
function example(page: string): string {
  const code = codeBlocks(readDoc(page), 'js')[0];
  if (code === undefined) throw new Error(`${page} has no js example`);
  return code;
}

/** Runs a page's example by node in the clone: its lines on stdout. */
async function runExample(page: string): Promise<string[]> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', example(page)], { cwd: ROOT });
  return stdout.trim().split('\n');
}

/**
 * The library's documentation runs as written: the README's ten lines, the guide's example and
 * samples/library.mjs, each by node in the clone (`propdata` resolves to the package itself,
 * built by `npm test`'s pretest).
 */
describe('the library as documented', () => {
  it("runs the README's ten lines against the sandbox: a record per home, in order, with its cost", async () => {
    expect(await runExample('README.md')).toEqual([expect.stringMatching(/^1 ok 0\.25$/), expect.stringMatching(/^2 ok 0\.25$/)]);
  });

  it("runs the library guide's example against the sandbox", async () => {
    const lines = await runExample('docs/library.md');
    expect(Number(lines[0])).toBeGreaterThan(0);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^1 ok \d/), expect.stringMatching(/^2 ok \d/), 'completed']);
  });

  it('runs samples/library.mjs: the second night takes every answer from the store and costs nothing', async () => {
    const { stdout } = await run(process.execPath, ['samples/library.mjs'], { cwd: ROOT });
    expect(stdout).toMatch(/^first night: 53 rows, 0 from the store, [1-9]\d*\.\d\d USD$/m);
    expect(stdout).toMatch(/^second night: 53 rows, 52 from the store, 0\.00 USD$/m);
  });
});
