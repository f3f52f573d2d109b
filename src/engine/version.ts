import { createRequire } from 'node:module';

/** The package version, read once from package.json (two levels up from dist/engine/). */
export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
