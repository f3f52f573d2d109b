import Sqlite from 'better-sqlite3';
import { openStore } from '../../../src/store/index.js';
import { tempStorePath } from '../helpers/temp-store.js';
import { keyStoreContract } from './key-store-contract.js';
import { storeContract, type StoreDriver } from './store-contract.js';

/** The SQLite driver: a real file in a temp directory; damage is bytes no JSON reader accepts, as issue 27 wrote them. */
const driver: StoreDriver = {
  async create(now) {
    const path = tempStorePath();
    return {
      store: await openStore(path, { now }),
      open: () => openStore(path, { now }),
      damage: (account, item, ref, text) =>
        new Promise<void>((resolve) => {
          const db = new Sqlite(path);
          try {
            const changed = db
              .prepare(
                `UPDATE sections SET body = coalesce(?, x'deadbeefdeadbeef')
                 WHERE item = (SELECT id FROM items WHERE identity = ? AND account = (SELECT id FROM accounts WHERE name = ?))
                   AND endpoint = (SELECT id FROM endpoints WHERE name = ?) AND params = ?`,
              )
              .run(text ?? null, item, account, ref.endpoint, ref.params).changes;
            if (changed !== 1) throw new Error(`no section to damage (${changed})`);
            resolve();
          } finally {
            db.close();
          }
        }),
      damageFrame: (account, item, text) =>
        new Promise<void>((resolve) => {
          const db = new Sqlite(path);
          try {
            const { changes } = db
              .prepare('UPDATE items SET frame = ? WHERE identity = ? AND account = (SELECT id FROM accounts WHERE name = ?)')
              .run(text, item, account);
            if (changes !== 1) throw new Error(`no frame to damage (${changes})`);
            resolve();
          } finally {
            db.close();
          }
        }),
    };
  },
};

storeContract('SQLite', driver);
keyStoreContract('SQLite', driver);
