import { isoDay } from './dates.js';
import type { Random } from './random.js';

/**
 * The county recorder's references of a document. The document number starts with the year it was
 * recorded, as many counties number them, so record_doc and record_date agree.
 */
export interface Recording {
  record_book: string;
  record_page: string;
  record_doc: string;
  record_date: string;
}

const docNumber = (year: number, serial: number) => `${year}${String(serial).padStart(7, '0')}`;

export function recording(random: Random, date: Date): Recording {
  return {
    record_book: String(random.int(10_000, 99_999)),
    record_page: String(random.int(100, 999)),
    record_doc: docNumber(date.getUTCFullYear(), random.int(1, 9_000_000)),
    record_date: isoDay(date),
  };
}

/** A document recorded right after another (a purchase loan after its deed): same book, next pages and number. */
export function recordedAfter(previous: Recording, random: Random): Recording {
  const year = Number(previous.record_doc.slice(0, 4));
  return {
    ...previous,
    record_page: String(Number(previous.record_page) + random.int(2, 30)),
    record_doc: docNumber(year, Number(previous.record_doc.slice(4)) + 1),
  };
}
