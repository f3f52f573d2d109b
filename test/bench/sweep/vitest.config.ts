import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The start-phase sweep (npm run bench, figure "sweep"): vitest runs it for the TypeScript sources and the
// fake clock, but it measures and asserts nothing, so it is a `.sweep.ts` that `npm test` never picks up.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../../..', import.meta.url)),
    include: ['test/bench/sweep/*.sweep.ts'],
    testTimeout: 600_000,
  },
});
