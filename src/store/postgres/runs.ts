/**
 * The statement that enters a run in the store's runs (Store.enterRun) and gives the earliest start
 * among the account's runs running now, its own included (`earliest`), taking out the runs named in
 * `left` (this process's, closed) and those lapsed. Its values are SQL expressions: parameters
 * (enterRun) or literals (a claim's opening, which enters its run in the same round trip).
 */
export const enterRunStatement = (s: string, v: { accountId: string; run: string; leaseMs: string; left: string }): string =>
  `WITH lapsed AS (DELETE FROM ${s}.runs WHERE expires <= ${s}.now_ms() AND run <> ${v.run} AND run <> ALL(${v.left}::text[])),
   ended AS (DELETE FROM ${s}.runs WHERE run = ANY(${v.left}::text[])),
   entered AS (
     INSERT INTO ${s}.runs AS r (run, account, started, expires) VALUES (${v.run}, ${v.accountId}, ${s}.now_ms(), ${s}.now_ms() + ${v.leaseMs})
     ON CONFLICT (run) DO UPDATE SET expires = excluded.expires,
       started = CASE WHEN r.expires <= ${s}.now_ms() THEN excluded.started ELSE r.started END
     RETURNING started
   )
   SELECT least((SELECT started FROM entered), (SELECT min(started) FROM ${s}.runs
     WHERE account = ${v.accountId} AND expires > ${s}.now_ms() AND run <> ${v.run} AND run <> ALL(${v.left}::text[]))) AS earliest`;
