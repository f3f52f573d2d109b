import { fileURLToPath } from 'node:url';

/** Where the benchmark finds the project, its compiled CLI and the shared data; all absolute. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/propdata.js', import.meta.url));
export const BENCHMARKS_MD = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
/** Generated inputs and outputs: ignored by git, kept between runs so inputs are built once. */
export const WORK = fileURLToPath(new URL('./.work/', import.meta.url));
export const USAGE_REPORTER = new URL('./resource-usage.mjs', import.meta.url).href;

/** The shared data sits beside the repository (../shared); PROPDATA_BENCH_DATA points elsewhere. */
export const BALTIMORE_CSV =
  process.env.PROPDATA_BENCH_DATA ?? fileURLToPath(new URL('../../../shared/data/addresses-baltimore-county.csv', import.meta.url));
