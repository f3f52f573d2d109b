import type { ReportedWindow } from '../../throttle/rate-headers.js';
import { encode, foundItem, nothingFound } from '../kept-text.js';
import { toMicros } from '../spend.js';
import type { FoundItem, ItemRef, StoreEntry } from '../store-api.js';
import { identityKey } from '../identity-key.js';
import { deleteClaims } from './claims.js';
import { prepared, type Database } from './database.js';

/** A row of findItems: the item's place in the list (from 1), its identity and frame, and one fresh section (nulls when none). */
type FoundRow = [
  ord: number,
  identity: string,
  frame: string,
  endpoint: string | null,
  params: string | null,
  at: number | null,
  body: string | null,
];

/**
 * What the store holds of each item's sections that arrived at or after `freshFrom` (freshness.ts,
 * on the database's clock): one statement for the lot, whatever the number of items (each item's
 * fresh sections, and its frame). Each item (by its key) and its sections are found through their
 * indexes, one lookup a listed item (LATERAL, kept apart by OFFSET 0): joined plainly, the plan
 * depended on the tables' statistics, which lag a store filling up, and a first run of 100,000
 * items hashed the whole account's items for every block of 100 (17 ms a lookup instead of 0.4 ms).
 * Only the keys are sent: the rows come back with their identity, compared here (item-keys.ts: two
 * identities may share a key). Sent as a text array, the identities cost the database more to read
 * than the lookups did (a block of 200: 1.6 ms a statement against 2.2 to 2.7 ms with them).
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
    `SELECT w.ord::int, i.identity, i.frame, k.endpoint, k.params, k.at, k.body
     FROM unnest($2::bigint[]) WITH ORDINALITY AS w(key, ord)
     CROSS JOIN LATERAL (SELECT id, identity, frame FROM ${s}.items
       WHERE account = (SELECT id FROM ${s}.accounts WHERE name = $1) AND key = w.key OFFSET 0) i
     LEFT JOIN LATERAL (SELECT endpoint, params, at, body FROM ${s}.sections WHERE item = i.id AND at >= $3 OFFSET 0) k ON true`,
    [account, items.map((ref) => identityKey(ref.item)), freshFrom],
  );
  const byItem = new Map<number, FoundRow[]>();
  for (const row of rows) {
    if (row[1] !== items[row[0] - 1]!.item) continue;
    const kept = byItem.get(row[0]);
    if (kept) kept.push(row);
    else byItem.set(row[0], [row]);
  }
  return items.map((ref, index) => {
    const kept = byItem.get(index + 1);
    if (!kept) return nothingFound(ref);
    return foundItem(ref.sections, kept[0]![2], (section) => {
      const row = kept.find(([, , , endpoint, params]) => endpoint === section.endpoint && params === section.params);
      return row && { at: row[5]!, body: row[6] };
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

/** A row WRITE_REQUESTS returns: a new request's number, or an item written. */
interface WrittenRow {
  n: number | null;
  id: number | null;
  account: number | null;
  key: number | null;
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
 * answer, section and claim tagged with its entry's number (from 1, as WITH ORDINALITY counts), each
 * answer and section with its item's key. An answer whose key another identity of its account has
 * among these is left out (1 in 2^53 a pair: item-keys.ts), so that a key names one item here.
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
  const answers = columns('n', 'key', 'identity', 'frame');
  const sections = columns('n', 'account', 'key', 'endpoint', 'params', 'body');
  // Each account's keys, and the identity each names here.
  const identities = new Map<number, Map<number, string>>();
  const settles = columns('n', 'key', 'endpoint', 'params');
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
      const key = identityKey(answer.identity);
      const named = identities.get(accountId) ?? identities.set(accountId, new Map()).get(accountId)!;
      if ((named.get(key) ?? answer.identity) !== answer.identity) continue;
      named.set(key, answer.identity);
      push(answers, { n, key, identity: answer.identity, frame: answer.frame });
      for (const section of answer.sections) push(sections, { n, account: accountId, key, ...section });
    }
    for (const claim of owner === undefined ? [] : (settled ?? []))
      push(settles, { n, key: identityKey(claim.item), endpoint: claim.endpoint, params: claim.params });
  });
  return { entry, answers, sections, settles };
}

/**
 * The record's rules, each once, in every statement and function that writes what requests left
 * (WRITE_REQUESTS, WRITE_SECTIONS, the schema's record_answer: record-answer.ts).
 */
export const RECORD_RULES = {
  /** A request is recorded once (its account, time and run): what it left is written only the first time. */
  requestOnce: 'ON CONFLICT (account, at, run) DO NOTHING',
  /**
   * An item (alias i) keeps its newest arrival, and takes an answer's frame as new or newer, or when
   * its own is unreadable; never one of another identity that has its key (item-keys.ts).
   */
  item: (s: string) =>
    `ON CONFLICT (account, key) DO UPDATE SET
       at = greatest(i.at, excluded.at),
       frame = CASE WHEN excluded.at >= i.at OR NOT ${s}.readable(i.frame) THEN excluded.frame ELSE i.frame END
     WHERE i.identity = excluded.identity`,
  /** A kept section (alias k) is replaced by an answer as new or newer, or when its text is unreadable: never by an older one. */
  section: (s: string) =>
    `ON CONFLICT (item, endpoint, params) DO UPDATE SET at = excluded.at, body = excluded.body
     WHERE excluded.at >= k.at OR NOT ${s}.readable(k.body)`,
  /** The windows an account's service stated (alias w): the latest stated wins. */
  windows: 'ON CONFLICT (account) DO UPDATE SET at = excluded.at, windows = excluded.windows WHERE excluded.at >= w.at',
};

/**
 * A group's requests, answers' items, windows and settled claims (entryArrays: $1 to $20), each
 * request's only if it is new; returns the numbers of the new ones (`n`), and each item written
 * (`id`, `account`, `key`; not one whose key another identity has).
 */
const WRITE_REQUESTS = (s: string) =>
  `WITH entry AS (
     SELECT * FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::int[], $9::bigint[],
                          $10::bigint[], $11::text[], $12::text[])
       WITH ORDINALITY AS e(account, at, run, endpoint, items, components, status, billed, cost, arrived, windows, owner, n)
   ),
   request AS (
     INSERT INTO ${s}.requests AS r (at, run, account, endpoint, items, components, status, billed, cost)
     SELECT at, run, account, endpoint, items, components, status, billed, cost FROM entry
     ${RECORD_RULES.requestOnce}
     RETURNING r.account, r.at, r.run
   ),
   new AS (
     SELECT e.n, e.account, coalesce(e.arrived, ${s}.now_ms()) AS arrived, e.windows, e.owner
     FROM entry e JOIN request r ON r.account = e.account AND r.at = e.at AND r.run = e.run
   ),
   kept_items AS (
     INSERT INTO ${s}.items AS i (account, key, identity, at, frame)
     SELECT DISTINCT ON (new.account, a.key) new.account, a.key, a.identity, new.arrived, a.frame
     FROM unnest($13::int[], $14::bigint[], $15::text[], $16::text[]) AS a(n, key, identity, frame) JOIN new USING (n)
     ORDER BY new.account, a.key, a.n DESC
     ${RECORD_RULES.item(s)}
     RETURNING i.id, i.account, i.key
   ),
   kept_windows AS (
     INSERT INTO ${s}.windows AS w (account, at, windows)
     SELECT DISTINCT ON (account) account, arrived, windows FROM new WHERE windows IS NOT NULL ORDER BY account, n DESC
     ${RECORD_RULES.windows}
   ),
   settled AS (
     ${deleteClaims(s, 'unnest($17::int[], $18::bigint[], $19::text[], $20::text[]) AS x(n, key, endpoint, params) JOIN new USING (n)')}
   )
   SELECT n, NULL AS id, NULL AS account, NULL AS key FROM new
   UNION ALL SELECT NULL, id, account, key FROM kept_items`;

/** The sections of the new requests' answers ($1 to $6, a row each), under their items' ids (as WRITE_REQUESTS returned them). */
const WRITE_SECTIONS = (s: string) =>
  `INSERT INTO ${s}.sections AS k (item, endpoint, params, at, body)
     SELECT DISTINCT ON (x.item, x.endpoint, x.params) x.item, x.endpoint, x.params, coalesce(x.arrived, ${s}.now_ms()), x.body
     FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[]) AS x(n, item, endpoint, params, body, arrived)
     ORDER BY x.item, x.endpoint, x.params, x.n DESC
     ${RECORD_RULES.section(s)}`;

/**
 * What requests left, in one transaction: each one's spend record, and, only for those that are new
 * (a request is recorded once), their answers (each section replacing an older or unreadable one,
 * never a newer one), the windows they stated, and the release of the claims they settle. An item
 * answered twice among them (two requests of a group; --no-dedupe sends repeats together) is
 * written once, the later answer winning, as writing them one after the other would leave it;
 * items in the order of their keys, so that two jobs writing the same items lock them in the same order.
 * Answers arrive at the database's now (the transaction's), or at their entry's `arrivedAt`;
 * windows are given with their resets on the database's clock.
 *
 * Two statements: the sections are written once their items are, under the ids the first returned
 * (no join: an item's account and key name its id). Joined in the statement that writes the items,
 * to what it returns, they were matched in a nested loop (the planner takes every set here for one
 * row): 2 ms of the database's time per 100 items (by identity), and the square of a group's size.
 * One request with one answer or none (a one-item call's) is one statement instead of four (BEGIN,
 * two statements, COMMIT): the schema's record_answer.
 */
export async function recordEntries(db: Database, s: string, entries: readonly DatabaseEntry[]): Promise<void> {
  if (entries.length === 0) return;
  if (entries.length === 1 && entries[0]!.entry.answers.length <= 1) return recordAnswer(db, s, entries[0]!);
  const { entry, answers, sections, settles } = entryArrays(entries);
  const requests = [
    ...[entry.account, entry.at, entry.run, entry.endpoint, entry.items, entry.components, entry.status, entry.billed, entry.cost],
    ...[entry.arrived, entry.windows, entry.owner],
    ...[answers.n, answers.key, answers.identity, answers.frame],
    ...[settles.n, settles.key, settles.endpoint, settles.params],
  ];
  await db.transaction(async (client) => {
    const { rows } = await client.query<WrittenRow>(prepared(WRITE_REQUESTS(s), requests));
    // Only the sections of new requests, each under its item's id, with its entry's arrival (ordinality is a bigint: a number here).
    const written = new Set(rows.flatMap((row) => (row.n === null ? [] : [row.n])));
    const ids = new Map<number, Map<number, number>>();
    for (const { id, account, key } of rows)
      if (id !== null) (ids.get(account!) ?? ids.set(account!, new Map()).get(account!)!).set(key!, id);
    const item = (i: number) => ids.get(sections.account[i] as number)?.get(sections.key[i] as number);
    const kept = sections.n.flatMap((n, i) => (written.has(n as number) && item(i) !== undefined ? [i] : []));
    if (kept.length === 0) return;
    const column = (values: unknown[]) => kept.map((i) => values[i]);
    await client.query(
      prepared(WRITE_SECTIONS(s), [
        column(sections.n),
        kept.map(item),
        ...[sections.endpoint, sections.params, sections.body].map(column),
        column(sections.n.map((n) => entry.arrived[(n as number) - 1])),
      ]),
    );
  });
}

/** One request's record, with its one answer or none (recordEntries): the schema's record_answer (record-answer.ts). */
async function recordAnswer(db: Database, s: string, { accountId, entry, arrivedAt, windows }: DatabaseEntry): Promise<void> {
  const { request, owner } = entry;
  const answer = entry.answers.length === 0 ? undefined : encode(entry.answers[0]!);
  const sections = answer?.sections ?? [];
  const settles = owner === undefined ? [] : (entry.settles ?? []);
  await db.query(
    `SELECT ${s}.record_answer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
    [
      ...[accountId, request.at, request.run, request.endpoint, request.items, request.components, request.status, request.billed],
      ...[
        toMicros(request.cost),
        arrivedAt === undefined ? null : Math.round(arrivedAt),
        windows.length > 0 ? JSON.stringify(windows) : null,
      ],
      ...[owner ?? null, answer === undefined ? null : identityKey(answer.identity), answer?.identity ?? null, answer?.frame ?? null],
      ...[sections.map((x) => x.endpoint), sections.map((x) => x.params), sections.map((x) => x.body)],
      ...[settles.map((claim) => identityKey(claim.item)), settles.map((claim) => claim.endpoint), settles.map((claim) => claim.params)],
    ],
  );
}
