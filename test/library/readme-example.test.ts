import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** The README's Library example, as a reader copies it. */
function readmeExample(): string {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## Library'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('the README has no js example under "## Library"');
  return match[1]!;
}

/**
 * The library's documentation runs as written: the README's example and samples/library.mjs, each
 * by node in the clone (`propdata` resolves to the package itself, built by `npm test`'s pretest).
 */
describe('the library as documented', () => {
  it("runs the README's example against the sandbox", async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', readmeExample()], { cwd: ROOT });
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
