// `npm pack` / `npm publish`: the package ships built, so its package.json needs no `prepare`
// (that script builds a clone on `npm ci`; in an installed package npm would only warn about it).
// `prepack` builds dist/ afresh (no files of deleted sources) and takes `prepare` out of
// package.json; `postpack` puts package.json back as it was. No source maps are built
// (tsconfig.json): the package does not ship the TypeScript sources they would point to.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

const MANIFEST = 'package.json';
const KEPT = '.package.json.prepack';

if (process.argv[2] === 'prepack') {
  rmSync('dist', { recursive: true, force: true });
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
  if (!existsSync(KEPT)) copyFileSync(MANIFEST, KEPT);
  const manifest = JSON.parse(readFileSync(KEPT, 'utf8'));
  delete manifest.scripts.prepare;
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
} else if (process.argv[2] === 'postpack') {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
} else {
  throw new Error('usage: node .ci/pack-manifest.mjs prepack|postpack');
}
