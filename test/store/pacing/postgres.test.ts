import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.js';
import { databasePerFile, freshSchema } from '../../helpers/postgres.js';
import { pacingContract } from './pacing-contract.js';

const database = databasePerFile();

/** Machines on one PostgreSQL schema, each measuring the database's clock (the test's) a little off. */
pacingContract('PostgreSQL', {
  fresh(clock) {
    const url = freshSchema(database.url);
    return (measuredOffMs = 0) => openPostgresStore(url, { now: () => clock.now() + measuredOffMs, databaseNow: () => clock.now() });
  },
});
