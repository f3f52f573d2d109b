import { fileURLToPath } from 'node:url';

/** Where the benchmark finds the project, its compiled CLI and its data; all absolute. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/propdata.js', import.meta.url));
export const BENCHMARKS_MD = fileURLToPath(new URL('../../BENCHMARKS.md', import.meta.url));
/** Generated inputs and outputs: ignored by git, kept between runs so inputs are built once. */
export const WORK = fileURLToPath(new URL('./.work/', import.meta.url));
export const USAGE_REPORTER = new URL('./resource-usage.mjs', import.meta.url).href;

/** The Baltimore address points, kept gzipped beside the benchmark (data/README.md); PROPDATA_BENCH_DATA points elsewhere. */
export const BALTIMORE_CSV =
  process.env.PROPDATA_BENCH_DATA ?? fileURLToPath(new URL('./data/addresses-baltimore-county.csv.gz', import.meta.url));
