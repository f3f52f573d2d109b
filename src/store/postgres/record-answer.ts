import { deleteClaims } from './claims.js';
import { RECORD_RULES } from './sections.js';

/**
 * Schema 7: what one request left, when it brought one answer or none (a one-item call's, a group
 * of one), as a function of the store's schema (`record_answer`), one prepared statement: its
 * statements each write one thing, planned once a connection, where the statement of several
 * CTEs that it replaces set up a plan of six parts over arrays for one row (0.05 to 0.13 ms more a
 * record, most of it the database's CPU: BENCHMARKS.md, oneItem). Its rules are RECORD_RULES, as every
 * record's. Arguments: the request (account, at, run, endpoint, items, components, status, billed,
 * cost), when its answer arrived (null: now), the windows it stated (JSON, or null), its owner (or
 * null); its answer's item (key, identity, frame; nulls when none) and sections (endpoints,
 * parameters, bodies); the claims it settles (keys, endpoints, parameters).
 */
export const recordAnswerFunction = (s: string): string => `
  CREATE FUNCTION ${s}.record_answer(integer, bigint, text, text, integer, integer, integer, integer, bigint, bigint, text, text,
    bigint, text, text, text[], text[], text[], bigint[], text[], text[])
  RETURNS void LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
  DECLARE arrived bigint; kept bigint;
  BEGIN
    INSERT INTO ${s}.requests AS r (at, run, account, endpoint, items, components, status, billed, cost)
    VALUES ($2, $3, $1, $4, $5, $6, $7, $8, $9)
    ${RECORD_RULES.requestOnce};
    IF NOT FOUND THEN
      RETURN;
    END IF;
    arrived := coalesce($10, ${s}.now_ms());
    IF $13 IS NOT NULL THEN
      INSERT INTO ${s}.items AS i (account, key, identity, at, frame) VALUES ($1, $13, $14, arrived, $15)
      ${RECORD_RULES.item(s)}
      RETURNING i.id INTO kept;
      INSERT INTO ${s}.sections AS k (item, endpoint, params, at, body)
      SELECT DISTINCT ON (x.endpoint, x.params) kept, x.endpoint, x.params, arrived, x.body
      FROM unnest($16, $17, $18) WITH ORDINALITY AS x(endpoint, params, body, n)
      WHERE kept IS NOT NULL
      ORDER BY x.endpoint, x.params, x.n DESC
      ${RECORD_RULES.section(s)};
    END IF;
    IF $11 IS NOT NULL THEN
      INSERT INTO ${s}.windows AS w (account, at, windows) VALUES ($1, arrived, $11)
      ${RECORD_RULES.windows};
    END IF;
    ${deleteClaims(s, `unnest($19, $20, $21) AS x(key, endpoint, params) CROSS JOIN (SELECT $1 AS account, $12 AS owner) new`)};
  END $$;
`;
