import { databasePerFile, freshSchema } from '../../helpers/postgres.js';
import { raceContract } from './race-contract.js';

const database = databasePerFile();

/** Several machines' store: every job names the same PostgreSQL schema, on the test run's real server. */
raceContract('PostgreSQL', {
  fresh: () => Promise.resolve(freshSchema(database.url)),
});
