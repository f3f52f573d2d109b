import { BATCH_OPTIONS, CONNECTION_OPTIONS, ONE_OFF_OPTIONS, STORE_OPTIONS, type OptionDef } from '../options.js';

/** Options every query command shares, after its identifier and parameter flags. */
export const QUERY_OPTIONS: readonly OptionDef[] = [...ONE_OFF_OPTIONS, ...BATCH_OPTIONS, ...STORE_OPTIONS, ...CONNECTION_OPTIONS];
