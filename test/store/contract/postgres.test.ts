import { openPostgresStore } from '../../../src/store/postgres/open-postgres-store.js';
import { databasePerFile, freshSchema } from '../../helpers/postgres.js';
import { keyStoreContract } from './key-store-contract.js';
import { storeContract, type StoreDriver } from './store-contract.js';

const database = databasePerFile();

/**
 * The PostgreSQL driver: a real server (the test run's embedded one), each test a store of its own
 * (a fresh schema) whose database clock is the suite's fake one. Damage is a text no JSON reader
 * accepts, written over a section as a hand-edit would.
 */
const driver: StoreDriver = {
  claimsItems: true,
  async create(now) {
    const url = freshSchema(database.url);
    const schema = new URL(url).searchParams.get('schema')!;
    const open = () => openPostgresStore(url, { now, databaseNow: now });
    return {
      store: await open(),
      open,
      async damage(account, item, ref, text = 'deadbeef{') {
        const { rowCount } = await database.admin.query(
          `UPDATE ${schema}.sections SET body = $5
           WHERE item = (SELECT id FROM ${schema}.items WHERE identity = $1 AND account = (SELECT id FROM ${schema}.accounts WHERE name = $2))
             AND endpoint = $3 AND params = $4`,
          [item, account, ref.endpoint, ref.params, text],
        );
        if (rowCount !== 1) throw new Error(`no section to damage (${rowCount})`);
      },
      async damageFrame(account, item, text) {
        const { rowCount } = await database.admin.query(
          `UPDATE ${schema}.items SET frame = $3 WHERE identity = $1 AND account = (SELECT id FROM ${schema}.accounts WHERE name = $2)`,
          [item, account, text],
        );
        if (rowCount !== 1) throw new Error(`no frame to damage (${rowCount})`);
      },
    };
  },
};

storeContract('PostgreSQL', driver);
keyStoreContract('PostgreSQL', driver);
