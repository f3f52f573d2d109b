import type { ReportedWindow } from '../../throttle/rate-headers.js';
import { encode, foundItem, nothingFound } from '../kept-text.js';
import { toMicros } from '../spend.js';
import type { FoundItem, ItemRef, StoreEntry } from '../store-api.js';
import { deleteClaims } from './claims.js';
import { prepared, type Database } from './database.js';

/** A row of findItems: the item's place in the list (from 1), its frame, and one fresh section (nulls when none). */
type FoundRow = [ord: number, frame: string, endpoint: string | null, params: string | null, at: number | null, body: string | null];

/**
 * What the store holds of each item's sections that arrived at or after `freshFrom` (freshness.ts,
 * on the database's clock): one statement for the lot, whatever the number of items (each item's
 * fresh sections, and its frame). Each item and its sections are found through their indexes, one
 * lookup a listed item (LATERAL, kept apart by OFFSET 0): joined plainly, the plan depended on the
 * tables' statistics, which lag a store filling up, and a first run of 100,000 items hashed the
 * whole account's items for every block of 100 (17 ms a lookup instead of 0.4 ms).
 */
export async function findItems(
  db: Database,
  s: string,
  account: string,
  items: readonly ItemRef[],
  freshFrom: number,
): Promise<FoundItem[]> {
  if (items.length === 0) return [];
  const rows = await db.queryArrays<FoundRow>(
    `SELECT w.ord::int, i.frame, k.endpoint, k.params, k.at, k.body
     FROM unnest($2::text[]) WITH ORDINALITY AS w(identity, ord)
     CROSS JOIN LATERAL (SELECT id, frame FROM ${s}.items
       WHERE account = (SELECT id FROM ${s}.accounts WHERE name = $1) AND identity = w.identity OFFSET 0) i
     LEFT JOIN LATERAL (SELECT endpoint, params, at, body FROM ${s}.sections WHERE item = i.id AND at >= $3 OFFSET 0) k ON true`,
    [account, items.map((ref) => ref.item), freshFrom],
  );
  const byItem = new Map<number, FoundRow[]>();
  for (const row of rows) {
    const kept = byItem.get(row[0]);
    if (kept) kept.push(row);
    else byItem.set(row[0], [row]);
  }
  return items.map((ref, index) => {
    const kept = byItem.get(index + 1);
    if (!kept) return nothingFound(ref);
    return foundItem(ref.sections, kept[0]![1], (section) => {
      const row = kept.find(([, , endpoint, params]) => endpoint === section.endpoint && params === section.params);
      return row && { at: row[4]!, body: row[5] };
    });
  });
}

/** One entry as the database writes it: its account's id, and its times on the database's clock. */
export interface DatabaseEntry {
  accountId: number;
  entry: StoreEntry;
  /** When its answers arrived, for an entry recorded late; undefined: the database's now. */
  arrivedAt: number | undefined;
  windows: readonly ReportedWindow[];
}

/** Columns, each an array: what unnest reads. */
type Columns<K extends string> = Record<K, unknown[]>;

const columns = <K extends string>(...keys: K[]): Columns<K> => Object.fromEntries(keys.map((key) => [key, []])) as unknown as Columns<K>;

/** One row more: each column's value pushed onto its array (what else the row holds is not a column). */
function push<K extends string>(table: Columns<K>, row: Record<K, unknown>): void {
  for (const key in table) table[key].push(row[key]);
}

/**
 * Entries as arrays, one element per entry, per answer, per section and per claim settled, each
 * answer, section and claim tagged with its entry's number (from 1, as WITH ORDINALITY counts).
 */
function entryArrays(entries: readonly DatabaseEntry[]) {
  const entry = columns(
    'account',
    'at',
    'run',
    'endpoint',
    'items',
    'components',
    'status',
    'billed',
    'cost',
    'arrived',
    'windows',
    'owner',
  );
  const answers = columns('n', 'identity', 'frame');
  const sections = columns('n', 'identity', 'endpoint', 'params', 'body');
  const settles = columns('n', 'identity', 'endpoint', 'params');
  entries.forEach(({ accountId, entry: { request, owner, settles: settled }, arrivedAt, windows }, i) => {
    const n = i + 1;
    push(entry, {
      ...request,
      account: accountId,
      cost: toMicros(request.cost),
      arrived: arrivedAt === undefined ? null : Math.round(arrivedAt),
      windows: windows.length > 0 ? JSON.stringify(windows) : null,
      owner: owner ?? null,
    });
    for (const answer of entries[i]!.entry.answers.map(encode)) {
      push(answers, { n, identity: answer.identity, frame: answer.frame });
      for (const section of answer.sections) push(sections, { n, identity: answer.identity, ...section });
    }
    for (const claim of owner === undefined ? [] : (settled ?? []))
      push(settles, { n, identity: claim.item, endpoint: claim.endpoint, params: claim.params });
  });
  return { entry, answers, sections, settles };
}

/** A kept section is replaced by an answer as new or newer, or when its text is unreadable: never by an older one. */
const REPLACE_SECTION = (s: string) =>
  `ON CONFLICT (item, endpoint, params) DO UPDATE SET at = excluded.at, body = excluded.body
     WHERE excluded.at >= k.at OR NOT ${s}.readable(k.body)`;

/**
 * The sections of the new requests' answers written in the same statement ($20 to $24: entry,
 * identity, endpoint, params, body), joined to the items it writes by what that returns.
 */
const KEPT_SECTIONS = (s: string) =>
  `kept_sections AS (
     INSERT INTO ${s}.sections AS k (item, endpoint, params, at, body)
     SELECT DISTINCT ON (i.id, x.endpoint, x.params) i.id, x.endpoint, x.params, new.arrived, x.body
     FROM unnest($20::int[], $21::text[], $22::text[], $23::text[], $24::text[]) AS x(n, identity, endpoint, params, body)
     JOIN new USING (n) JOIN kept_items i ON i.account = new.account AND i.identity = x.identity
     ORDER BY i.id, x.endpoint, x.params, x.n DESC
     ${REPLACE_SECTION(s)}
   ),`;

/**
 * A group's requests, answers' items, windows and settled claims (entryArrays: $1 to $19), each
 * request's only if it is new; returns the numbers of the new ones. `withSections`: their sections
 * too (KEPT_SECTIONS), the whole record in one statement.
 */
const WRITE_REQUESTS = (s: string, withSections = false) =>
  `WITH entry AS (
     SELECT * FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::int[], $9::bigint[],
                          $10::bigint[], $11::text[], $12::text[])
       WITH ORDINALITY AS e(account, at, run, endpoint, items, components, status, billed, cost, arrived, windows, owner, n)
   ),
   request AS (
     INSERT INTO ${s}.requests AS r (at, run, account, endpoint, items, components, status, billed, cost)
     SELECT at, run, account, endpoint, items, components, status, billed, cost FROM entry
     ON CONFLICT (account, at, run) DO NOTHING
     RETURNING r.account, r.at, r.run
   ),
   new AS (
     SELECT e.n, e.account, coalesce(e.arrived, ${s}.now_ms()) AS arrived, e.windows, e.owner
     FROM entry e JOIN request r ON r.account = e.account AND r.at = e.at AND r.run = e.run
   ),
   kept_items AS (
     INSERT INTO ${s}.items AS i (account, identity, at, frame)
     SELECT DISTINCT ON (new.account, a.identity) new.account, a.identity, new.arrived, a.frame
     FROM unnest($13::int[], $14::text[], $15::text[]) AS a(n, identity, frame) JOIN new USING (n)
     ORDER BY new.account, a.identity, a.n DESC
     ON CONFLICT (account, identity) DO UPDATE SET
       at = greatest(i.at, excluded.at),
       frame = CASE WHEN excluded.at >= i.at OR NOT ${s}.readable(i.frame) THEN excluded.frame ELSE i.frame END
     ${withSections ? 'RETURNING i.id, i.account, i.identity' : ''}
   ),
   ${withSections ? KEPT_SECTIONS(s) : ''}
   kept_windows AS (
     INSERT INTO ${s}.windows AS w (account, at, windows)
     SELECT DISTINCT ON (account) account, arrived, windows FROM new WHERE windows IS NOT NULL ORDER BY account, n DESC
     ON CONFLICT (account) DO UPDATE SET at = excluded.at, windows = excluded.windows WHERE excluded.at >= w.at
   ),
   settled AS (
     ${deleteClaims(s, 'unnest($16::int[], $17::text[], $18::text[], $19::text[]) AS x(n, identity, endpoint, params) JOIN new USING (n)')}
   )
   SELECT n FROM new`;

/** The sections of the new requests' answers ($1 to $7, a row each), joined to their items by the items' index. */
const WRITE_SECTIONS = (s: string) =>
  `INSERT INTO ${s}.sections AS k (item, endpoint, params, at, body)
     SELECT DISTINCT ON (i.id, x.endpoint, x.params) i.id, x.endpoint, x.params, coalesce(x.arrived, ${s}.now_ms()), x.body
     FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
       AS x(n, account, identity, endpoint, params, body, arrived)
     JOIN ${s}.items i ON i.account = x.account AND i.identity = x.identity
     ORDER BY i.id, x.endpoint, x.params, x.n DESC
     ${REPLACE_SECTION(s)}`;

/**
 * What requests left, in one transaction: each one's spend record, and, only for those that are new
 * (a request is recorded once), their answers (each section replacing an older or unreadable one,
 * never a newer one), the windows they stated, and the release of the claims they settle. An item
 * answered twice among them (two requests of a group; --no-dedupe sends repeats together) is
 * written once, the later answer winning, as writing them one after the other would leave it;
 * items in identity order, so that two jobs writing the same items lock them in the same order.
 * Answers arrive at the database's now (the transaction's), or at their entry's `arrivedAt`;
 * windows are given with their resets on the database's clock.
 *
 * Two statements: the sections are written once their items are, by a join on the items' index.
 * Joined in the statement that writes the items, to what it returns, they were matched in a nested
 * loop (the planner takes every set here for one row): 2 ms of the database's time per 100 items,
 * and the square of a group's size. A group of one answer (a one-item call's) has no square to
 * fear: it is one statement, one round trip instead of four (BEGIN, two statements, COMMIT).
 */
export async function recordEntries(db: Database, s: string, entries: readonly DatabaseEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const { entry, answers, sections, settles } = entryArrays(entries);
  const requests = [
    ...[entry.account, entry.at, entry.run, entry.endpoint, entry.items, entry.components, entry.status, entry.billed, entry.cost],
    ...[entry.arrived, entry.windows, entry.owner],
    ...[answers.n, answers.identity, answers.frame],
    ...[settles.n, settles.identity, settles.endpoint, settles.params],
  ];
  if (answers.n.length <= 1) {
    await db.query(WRITE_REQUESTS(s, true), [
      ...requests,
      sections.n,
      sections.identity,
      sections.endpoint,
      sections.params,
      sections.body,
    ]);
    return;
  }
  await db.transaction(async (client) => {
    const { rows } = await client.query<{ n: number }>(prepared(WRITE_REQUESTS(s), requests));
    // Only the sections of new requests, each with its entry's account and arrival (ordinality is a bigint: a number here).
    const written = new Set(rows.map((row) => row.n));
    const kept = sections.n.flatMap((n, i) => (written.has(n as number) ? [i] : []));
    if (kept.length === 0) return;
    const column = (values: unknown[]) => kept.map((i) => values[i]);
    await client.query(
      prepared(WRITE_SECTIONS(s), [
        column(sections.n),
        column(sections.n.map((n) => entry.account[(n as number) - 1])),
        ...[sections.identity, sections.endpoint, sections.params, sections.body].map(column),
        column(sections.n.map((n) => entry.arrived[(n as number) - 1])),
      ]),
    );
  });
}
