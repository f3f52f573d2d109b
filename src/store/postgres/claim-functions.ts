/** The schema's name as a string constant (as pg's escapeLiteral gives its value), from its name as an identifier, quoted or not. */
function schemaLiteral(s: string): string {
  const name = s.startsWith('"') ? s.slice(1, -1).replaceAll('""', '"') : s;
  return `E'${name.replace(/['\\]/g, '$&$&')}'`;
}

/**
 * Schema 7: a claim's statements as functions of the store's schema (PROTOCOL.md, rule 4), each
 * the only copy of its statement: the locks (`claim_locks`), the read (`claim_state`), a run's
 * entry (`enter_run`), and a one-item call's whole claim (`claim_item`), which runs the three
 * as statements of its own, so that a one-item call's claim is one prepared statement: parsed and
 * planned once a connection, bound and run in one round trip, one result. Sent as one string of
 * five statements (SET LOCALs, EXECUTEs), it took 0.07 to 0.10 ms more a claim, 0.05 to 0.07 ms
 * of it the database's CPU (BENCHMARKS.md, oneItem).
 *
 * Each statement of a VOLATILE function has a snapshot of its own (READ COMMITTED): the read, made
 * once `claim_locks` returned, sees every answer committed before the locks were had, as a
 * statement of its own after them did.
 */
export const claimFunctionsMigration = (s: string): string => `
  -- Each section's advisory lock, for the rest of the transaction, in the order given (one order
  -- for every job: store/claim-protocol.ts distinctSections), named by the store's schema, the
  -- account, the item's key, the endpoint and its parameters. Arguments: the account, and the
  -- sections' keys, endpoints and parameters.
  CREATE FUNCTION ${s}.claim_locks(integer, bigint[], text[], text[]) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(${schemaLiteral(s)} || ' claim ' || $1 || ' ' || (k || E'\\n' || e || E'\\n' || p), 0))
    FROM unnest($2, $3, $4) WITH ORDINALITY AS x(k, e, p, ord) ORDER BY ord;
  END $$;

  -- Each section's claim and kept answer (nulls when none), the database's now, and the section as
  -- listed, with its place (ord). Each claim and kept answer is found through its index, one lookup
  -- a listed section (LATERAL, kept apart by OFFSET 0): joined plainly, a store filling up (its
  -- statistics lagging) had the whole sections table scanned for every claim, 10 ms each by 100,000
  -- items. A single SELECT, STABLE: inlined into the statement that calls it, and planned with it
  -- (with a list of literals, afresh each time: a plan kept for any list scanned the claims table
  -- once per section, which a run's churn leaves full of dead rows). Arguments: the account, and
  -- the sections' items' identities, endpoints, parameters and items' keys.
  CREATE FUNCTION ${s}.claim_state(integer, text[], text[], text[], bigint[])
  RETURNS TABLE (owner text, expires bigint, at bigint, body text, frame text, now bigint, key bigint, endpoint text, params text, ord bigint)
  LANGUAGE sql STABLE AS $$
    SELECT c.owner, c.expires, k.at, k.body, k.frame, ${s}.now_ms(), w.key, w.endpoint, w.params, w.ord
    FROM unnest($2, $3, $4, $5) WITH ORDINALITY AS w(identity, endpoint, params, key, ord)
    LEFT JOIN LATERAL (SELECT owner, expires FROM ${s}.claims
      WHERE account = $1 AND key = w.key AND endpoint = w.endpoint AND params = w.params OFFSET 0) c ON true
    LEFT JOIN LATERAL (SELECT k.at, k.body, i.frame FROM ${s}.items i JOIN ${s}.sections k ON k.item = i.id
      WHERE i.account = $1 AND i.key = w.key AND i.identity = w.identity AND k.endpoint = w.endpoint AND k.params = w.params OFFSET 0) k ON true
  $$;

  -- Enters a run in the runs (Store.enterRun), or renews it, and gives the earliest start among
  -- the account's runs running now, its own included, taking out the runs left (this process's,
  -- closed) and those lapsed. Arguments: the account, the run, its lease, the runs left.
  CREATE FUNCTION ${s}.enter_run(integer, text, bigint, text[]) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
  DECLARE earliest bigint;
  BEGIN
    WITH lapsed AS (DELETE FROM ${s}.runs WHERE expires <= ${s}.now_ms() AND run <> $2 AND run <> ALL($4)),
    ended AS (DELETE FROM ${s}.runs WHERE run = ANY($4)),
    entered AS (
      INSERT INTO ${s}.runs AS r (run, account, started, expires) VALUES ($2, $1, ${s}.now_ms(), ${s}.now_ms() + $3)
      ON CONFLICT (run) DO UPDATE SET expires = excluded.expires,
        started = CASE WHEN r.expires <= ${s}.now_ms() THEN excluded.started ELSE r.started END
      RETURNING started
    )
    SELECT least((SELECT started FROM entered), (SELECT min(started) FROM ${s}.runs
      WHERE account = $1 AND expires > ${s}.now_ms() AND run <> $2 AND run <> ALL($4)))
    INTO earliest;
    RETURN earliest;
  END $$;

  -- A one-item call's claim, in one transaction (its statement's): its lock timeout set, each
  -- section's lock taken, the run entered (unless none is given), then the read, which also claims
  -- every section for the owner when each is empty (neither kept nor claimed), in the same
  -- statement (its data-modifying part sees the read's snapshot, taken once the locks were had).
  -- Rows: the read's (claim_state), in the sections' order, with how many it claimed (taken) and
  -- the run's earliest start (null without a run). Its statements' plans are kept as they are
  -- (generic): PostgreSQL would otherwise plan each call afresh (a generic plan of a list of
  -- unknown length looks dearer to it), 0.6 ms more a call. Arguments: the account, the sections'
  -- identities, endpoints, parameters and keys (as claim_state's), the owner, the lease, the run
  -- to enter (or null) and the runs left, the lock timeout in milliseconds.
  CREATE FUNCTION ${s}.claim_item(integer, text[], text[], text[], bigint[], text, bigint, text, text[], integer)
  RETURNS TABLE (owner text, expires bigint, at bigint, body text, frame text, now bigint, taken integer, earliest bigint)
  LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
  #variable_conflict use_column
  DECLARE entered bigint;
  BEGIN
    PERFORM set_config('lock_timeout', $10 || 'ms', true);
    PERFORM ${s}.claim_locks($1, $5, $3, $4);
    IF $8 IS NOT NULL THEN
      entered := ${s}.enter_run($1, $8, $7, $9);
    END IF;
    RETURN QUERY WITH r AS (SELECT * FROM ${s}.claim_state($1, $2, $3, $4, $5)),
      taken AS (INSERT INTO ${s}.claims (account, key, endpoint, params, owner, expires)
        SELECT $1, r.key, r.endpoint, r.params, $6, r.now + $7 FROM r
        WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.owner IS NOT NULL OR r.at IS NOT NULL)
        RETURNING 1)
      SELECT r.owner, r.expires, r.at, r.body, r.frame, r.now, (SELECT count(*) FROM taken)::integer, entered FROM r ORDER BY r.ord;
  END $$;
`;
