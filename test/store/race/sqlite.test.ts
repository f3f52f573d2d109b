import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { raceContract } from './race-contract.js';

/** One machine's store: every job names the same SQLite file. */
raceContract('SQLite', {
  fresh: () => Promise.resolve(join(mkdtempSync(join(tmpdir(), 'propdata-race-store-')), 'propdata.db')),
});
