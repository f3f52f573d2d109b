import type { Level } from '../../catalog/index.js';

/** Levels with endpoints in the catalog get a command each; the rest are reached through `call`. */
export const COMMAND_LEVELS: readonly Level[] = ['property', 'block', 'zip', 'msa'];

/** Sample identifiers for generated help examples. */
export const EXAMPLE_IDENTIFIERS: Partial<Record<Level, string>> = {
  property: '--address "43 Valmonte Plaza" --zipcode 90274',
  block: '--block-id 060376703241005',
  zip: '--zipcode 90274',
  msa: '--msa 31080',
};
