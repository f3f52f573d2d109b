import type { KeptRows } from './item-lookup.js';

/**
 * KeptRows as the lookup thread hands them over (lookups-off-thread.ts): one ArrayBuffer, moved to
 * the main thread (postMessage's transfer list), not cloned. The main thread's share of a block is
 * then making its strings from UTF-8 bytes: 0.5-0.6 µs an item, against 0.8-1 µs to deserialize the
 * same rows cloned (a micro-benchmark: BENCHMARKS.md, storeSpeed); the thread does the packing.
 *
 * The buffer: a Float64 for each slot (its number), then each slot's end in the bytes (Uint32; the
 * one before's for a slot without bytes), then each slot's kind (a byte), then the bytes of the
 * texts and BLOBs. A BLOB comes back a Buffer, as the store's connection reads it (a clone would
 * make it a Uint8Array, which decode() does not read). Any other value travels in `others`, cloned.
 */
export interface PackedRows {
  slots: number;
  buffer: ArrayBuffer;
  others: Map<number, unknown> | undefined;
}

/** A slot's kind, its byte in the buffer. */
const Kind = { Missing: 0, Null: 1, Number: 2, Text: 3, Bytes: 4, Other: 5 } as const;

/** Where each part of a buffer of `slots` slots starts. */
function layout(slots: number): { ends: number; kinds: number; bytes: number } {
  const ends = 8 * slots;
  const kinds = ends + 4 * slots;
  return { ends, kinds, bytes: kinds + slots };
}

/**
 * Only a text that is well-formed UTF-16 comes back the same from UTF-8 (a lone surrogate would not;
 * Node 20 has the method, this project's ES2023 typings do not).
 */
const isText = (value: unknown): value is string =>
  typeof value === 'string' && (value as string & { isWellFormed(): boolean }).isWellFormed();

/** KeptRows packed into one buffer, to be moved to the main thread. */
export function packRows(kept: KeptRows): PackedRows {
  const slots = kept.length;
  const at = layout(slots);
  let size = at.bytes;
  for (const value of kept) if (isText(value) || Buffer.isBuffer(value)) size += Buffer.byteLength(value);
  const buffer = new ArrayBuffer(size);
  const numbers = new Float64Array(buffer, 0, slots);
  const ends = new Uint32Array(buffer, at.ends, slots);
  const kinds = new Uint8Array(buffer, at.kinds, slots);
  const bytes = Buffer.from(buffer, at.bytes);
  let end = 0;
  let others: Map<number, unknown> | undefined;
  for (let slot = 0; slot < slots; slot++) {
    const value = kept[slot];
    if (value === undefined) kinds[slot] = Kind.Missing;
    else if (value === null) kinds[slot] = Kind.Null;
    else if (typeof value === 'number') {
      kinds[slot] = Kind.Number;
      numbers[slot] = value;
    } else if (isText(value)) {
      kinds[slot] = Kind.Text;
      end += bytes.write(value, end);
    } else if (Buffer.isBuffer(value)) {
      kinds[slot] = Kind.Bytes;
      end += value.copy(bytes, end);
    } else {
      kinds[slot] = Kind.Other;
      (others ??= new Map()).set(slot, value);
    }
    ends[slot] = end;
  }
  return { slots, buffer, others };
}

/** The KeptRows a buffer holds, each text made here from its bytes. */
export function unpackRows({ slots, buffer, others }: PackedRows): KeptRows {
  const at = layout(slots);
  const numbers = new Float64Array(buffer, 0, slots);
  const ends = new Uint32Array(buffer, at.ends, slots);
  const kinds = new Uint8Array(buffer, at.kinds, slots);
  const bytes = Buffer.from(buffer, at.bytes);
  const kept: KeptRows = new Array(slots);
  let start = 0;
  for (let slot = 0; slot < slots; slot++) {
    const kind = kinds[slot];
    if (kind === Kind.Text) kept[slot] = bytes.toString('utf8', start, ends[slot]);
    else if (kind === Kind.Number) kept[slot] = numbers[slot];
    else if (kind === Kind.Null) kept[slot] = null;
    else if (kind === Kind.Bytes) kept[slot] = Buffer.from(bytes.subarray(start, ends[slot]));
    else if (kind === Kind.Other) kept[slot] = others!.get(slot);
    start = ends[slot]!;
  }
  return kept;
}
