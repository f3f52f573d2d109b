import { openStore } from '../../../src/store/index.js';
import { tempStorePath } from '../helpers/temp-store.js';
import { pacingContract } from './pacing-contract.js';

/** One machine's processes, each with its own connection to one SQLite file (its clock is the machine's: no offset to measure). */
pacingContract('SQLite', {
  fresh(clock) {
    const path = tempStorePath();
    return () => openStore(path, { now: () => clock.now() });
  },
});
