import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from './docs.js';

/**
 * The README's first run, `npx propdata` in the clone, installs the clone into npm's npx cache the
 * first time a machine runs it, and that install runs the package's `prepare`: dist/ rebuilt in the
 * repository, file by file, for some 10 s. Left to the test that runs it (test/cli/bin.test.ts), the
 * rebuild ran under other test files importing dist/ (one failed on a module half written) and
 * took that test past its timeout. Done once here, before any test file runs; on a machine that
 * has run it, npx finds its cache and rebuilds nothing.
 */
export default async function setup(): Promise<void> {
  await promisify(execFile)('npx', ['propdata', '--version'], { cwd: ROOT });
}
