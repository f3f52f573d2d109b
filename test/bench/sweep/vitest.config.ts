import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The start-phase sweep (npm run bench, figure "sweep"): in virtual time, so kept out of `npm test`'s include.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../../..', import.meta.url)),
    include: ['test/bench/sweep/*.sweep.ts'],
    testTimeout: 600_000,
  },
});
