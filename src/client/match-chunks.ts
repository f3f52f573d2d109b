import { isObject, metaPaths } from '../model/echoed-meta.js';

/** An item as it was sent: identifiers, parameters, meta. */
type SentItem = Readonly<Record<string, unknown>>;

/** The info member whose own fields are the service's canonical answer, not the item as sent. */
const ADDRESS_INFO = 'address_info';

const isScalar = (value: unknown) => value === null || typeof value !== 'object';

/** Sent and echoed values compare as text when scalar (a number may come back a string), else as JSON. */
function sameValue(sent: unknown, echoed: unknown): boolean {
  if (isScalar(sent) && isScalar(echoed)) return String(sent) === String(echoed);
  return JSON.stringify(sent) === JSON.stringify(echoed);
}

/**
 * What a chunk repeats of the item it answers: the meta it echoes, the identifiers as sent
 * (`address_info.status.requested_item`, spec), and the scalar fields of another level's info
 * member (`block_info.block_id`). address_info's own fields are the resolved address, which need
 * not be what was sent, so they are not read.
 */
function echoOf(chunk: unknown): Record<string, unknown> {
  if (!isObject(chunk)) return {};
  const echo: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(chunk)) {
    if (!member.endsWith('_info') || !isObject(value)) continue;
    const fields = member === ADDRESS_INFO ? (isObject(value.status) ? value.status.requested_item : undefined) : value;
    if (!isObject(fields)) continue;
    for (const [name, field] of Object.entries(fields)) if (isScalar(field)) echo[name] = field;
  }
  const [metaPath] = metaPaths(chunk);
  if (metaPath) {
    let meta: unknown = chunk;
    for (const segment of metaPath) meta = (meta as Record<string, unknown>)[segment];
    echo.meta = meta;
  }
  return echo;
}

/** Whether the echo names the item: they share a field, and every field they share is equal. */
function names(echo: Record<string, unknown>, item: SentItem): boolean {
  let shared = 0;
  for (const [name, value] of Object.entries(echo)) {
    if (!Object.hasOwn(item, name)) continue;
    if (!sameValue(item[name], value)) return false;
    shared += 1;
  }
  return shared > 0;
}

/**
 * The chunk of each sent item, in item order. When the answer has one chunk per item, it is
 * `chunks` itself (the spec: one per item, in request order). When the count differs, resending
 * could pay twice for the items that did come back, so each chunk that names exactly one item,
 * and is the only one to name it, is that item's: by its echoed meta, or by the identifiers it
 * repeats as sent. An item left without one gets `undefined` (chunkProblem: no chunk of its own).
 */
export function chunksForItems(items: readonly SentItem[], chunks: readonly unknown[]): readonly unknown[] {
  if (chunks.length === items.length) return chunks;
  const named = chunks.map((chunk) => {
    const echo = echoOf(chunk);
    return items.flatMap((item, i) => (names(echo, item) ? [i] : []));
  });
  const theirs: unknown[] = items.map(() => undefined);
  const claims = items.map(() => 0);
  for (const itemsNamed of named) for (const i of itemsNamed) claims[i]! += 1;
  named.forEach((itemsNamed, c) => {
    if (itemsNamed.length === 1 && claims[itemsNamed[0]!] === 1) theirs[itemsNamed[0]!] = chunks[c];
  });
  return theirs;
}
