import type { ReportedWindow } from '../../throttle/rate-headers.js';
import { encode, foundItem, nothingFound } from '../kept-text.js';
import { toMicros } from '../spend.js';
import type { FoundItem, ItemRef, StoreEntry } from '../store-api.js';
import type { Database } from './database.js';

interface FoundRow {
  ord: number;
  frame: string;
  endpoint: string | null;
  params: string | null;
  at: number | null;
  body: string | null;
}

/**
 * What the store holds of each item's sections that arrived at or after `freshFrom` (freshness.ts,
 * on the database's clock): one statement for the lot, whatever the number of items (each item's
 * fresh sections, and its frame).
 */
export async function findItems(
  db: Database,
  s: string,
  account: string,
  items: readonly ItemRef[],
  freshFrom: number,
): Promise<FoundItem[]> {
  if (items.length === 0) return [];
  const rows = await db.query<FoundRow>(
    `SELECT w.ord, i.frame, k.endpoint, k.params, k.at, k.body
     FROM unnest($2::text[]) WITH ORDINALITY AS w(identity, ord)
     JOIN ${s}.items i ON i.identity = w.identity AND i.account = (SELECT id FROM ${s}.accounts WHERE name = $1)
     LEFT JOIN ${s}.sections k ON k.item = i.id AND k.at >= $3`,
    [account, items.map((ref) => ref.item), freshFrom],
  );
  const byItem = new Map<number, FoundRow[]>();
  for (const row of rows) byItem.set(row.ord, [...(byItem.get(row.ord) ?? []), row]);
  return items.map((ref, index) => {
    const kept = byItem.get(index + 1);
    if (!kept) return nothingFound(ref);
    return foundItem(ref.sections, kept[0]!.frame, (section) => {
      const row = kept.find((candidate) => candidate.endpoint === section.endpoint && candidate.params === section.params);
      return row && { at: row.at!, body: row.body };
    });
  });
}

/**
 * The answers of one request as arrays, one element per item and per section. An item answered
 * twice in one request (--no-dedupe sends repeats together) is written once, its later answer
 * winning, as writing them one after the other would leave it; items in identity order, so that
 * two jobs writing the same items lock them in the same order.
 */
function answerArrays(entry: StoreEntry) {
  const items = new Map<string, { frame: string; sections: Map<string, { endpoint: string; params: string; body: string }> }>();
  for (const answer of entry.answers.map(encode)) {
    const item = items.get(answer.identity) ?? { frame: answer.frame, sections: new Map() };
    item.frame = answer.frame;
    for (const section of answer.sections) item.sections.set(`${section.endpoint}\n${section.params}`, section);
    items.set(answer.identity, item);
  }
  const ordered = [...items].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const sections = ordered.flatMap(([identity, item]) => [...item.sections.values()].map((section) => ({ identity, ...section })));
  return {
    identities: ordered.map(([identity]) => identity),
    frames: ordered.map(([, item]) => item.frame),
    sectionItems: sections.map((section) => section.identity),
    endpoints: sections.map((section) => section.endpoint),
    params: sections.map((section) => section.params),
    bodies: sections.map((section) => section.body),
  };
}

/**
 * What one request left, in one statement (so one transaction, one round trip): its spend record,
 * and, only if that is new (a request is recorded once), its answers (each section replacing an
 * older or unreadable one, never a newer one), the windows its answer stated, and the release of
 * the claims it settles. Answers arrive at the database's now, or at `arrivedAt` for an entry
 * recorded late; `windows` are given with their resets on the database's clock.
 */
export async function recordEntry(
  db: Database,
  s: string,
  accountId: number,
  entry: StoreEntry,
  { arrivedAt, windows }: { arrivedAt: number | undefined; windows: readonly ReportedWindow[] },
): Promise<void> {
  const { at, run, endpoint, items, components, status, billed, cost } = entry.request;
  const answers = answerArrays(entry);
  const settles = entry.owner === undefined ? [] : (entry.settles ?? []);
  await db.query(
    `WITH request AS (
       INSERT INTO ${s}.requests (at, run, account, endpoint, items, components, status, billed, cost)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (account, at, run) DO NOTHING
       RETURNING 1
     ),
     arrived AS (SELECT coalesce($10::bigint, ${s}.now_ms()) AS at),
     kept_items AS (
       INSERT INTO ${s}.items AS i (account, identity, at, frame)
       SELECT $3, a.identity, arrived.at, a.frame FROM unnest($11::text[], $12::text[]) AS a(identity, frame), arrived
       WHERE EXISTS (SELECT 1 FROM request)
       ON CONFLICT (account, identity) DO UPDATE SET
         at = greatest(i.at, excluded.at),
         frame = CASE WHEN excluded.at >= i.at OR NOT ${s}.readable(i.frame) THEN excluded.frame ELSE i.frame END
       RETURNING i.id, i.identity
     ),
     kept_sections AS (
       INSERT INTO ${s}.sections AS k (item, endpoint, params, at, body)
       SELECT kept_items.id, x.endpoint, x.params, arrived.at, x.body
       FROM unnest($13::text[], $14::text[], $15::text[], $16::text[]) AS x(identity, endpoint, params, body)
       JOIN kept_items ON kept_items.identity = x.identity CROSS JOIN arrived
       ON CONFLICT (item, endpoint, params) DO UPDATE SET at = excluded.at, body = excluded.body
       WHERE excluded.at >= k.at OR NOT ${s}.readable(k.body)
     ),
     kept_windows AS (
       INSERT INTO ${s}.windows AS w (account, at, windows)
       SELECT $3, arrived.at, $17::text FROM arrived WHERE $17::text IS NOT NULL AND EXISTS (SELECT 1 FROM request)
       ON CONFLICT (account) DO UPDATE SET at = excluded.at, windows = excluded.windows WHERE excluded.at >= w.at
     ),
     settled AS (
       DELETE FROM ${s}.claims c USING unnest($18::text[], $19::text[], $20::text[]) AS x(identity, endpoint, params)
       WHERE EXISTS (SELECT 1 FROM request) AND c.account = $3 AND c.owner = $21
         AND c.identity = x.identity AND c.endpoint = x.endpoint AND c.params = x.params
     )
     SELECT 1`,
    [
      ...[at, run, accountId, endpoint, items, components, status, billed, toMicros(cost)],
      arrivedAt === undefined ? null : Math.round(arrivedAt),
      ...[answers.identities, answers.frames, answers.sectionItems, answers.endpoints, answers.params, answers.bodies],
      windows.length > 0 ? JSON.stringify(windows) : null,
      ...[settles.map((claim) => claim.item), settles.map((claim) => claim.endpoint), settles.map((claim) => claim.params)],
      entry.owner ?? null,
    ],
  );
}
