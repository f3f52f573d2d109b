import { stateCode, type Identifier } from '../catalog/index.js';

/** Turns a cell into what is sent, or undefined when there is nothing to send. */
export type Normaliser = (value: unknown) => string | undefined;

const WHITESPACE_RUN = /\s+/g;
const DIGITS = /^\d+$/;
/** `21136.0`: a whole number written by pandas or a spreadsheet that stored the id as a float. */
const WHOLE_FLOAT = /^(\d+)\.0+$/;
const ZIP_PLUS4 = /^(\d{3,5})[- ](\d{4})$/;

/**
 * Identifiers that spreadsheets store as numbers lose their leading zeros: ZIPs of New England,
 * New Jersey, Puerto Rico (down to 00501), and census ids of states whose FIPS code starts with 0.
 * MSA and metro division codes never start with 0, so they are not padded.
 */
const LEADING_ZEROS_LOST: Readonly<Record<string, number>> = { zipcode: 2, block_id: 1, blockgroup_id: 1 };

/**
 * Why a cell cannot be sent as an identifier or a parameter, or undefined: a JSONL cell may be any
 * JSON value, and sending `{"nested":"obj"}` or `true` as text only earns a baffling answer.
 */
export function notTextOrNumber(value: unknown): string | undefined {
  if (typeof value === 'boolean') return `a boolean (${value})`;
  if (value === null || typeof value !== 'object') return undefined;
  return Array.isArray(value) ? 'an array' : 'an object';
}

/**
 * Text as sent: trimmed, inner whitespace runs collapsed (spreadsheet exports carry both). Cells
 * that are objects or arrays are refused before (notTextOrNumber).
 */
export function cleanText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const cleaned = String(value).trim().replace(WHITESPACE_RUN, ' ');
  return cleaned === '' ? undefined : cleaned;
}

function padLostZeros(digits: string, wanted: number, lost: number): string {
  return digits.length < wanted && digits.length >= wanted - lost ? digits.padStart(wanted, '0') : digits;
}

/**
 * ZIP+4 (`02140-1234`, `02140 1234`, `021401234`) becomes the 5-digit ZIP the service takes, and
 * ZIPs that lost leading zeros (`2140`, `501`, `21401234`) get them back. Anything else is left as
 * given, for validation to report.
 */
function normaliseZip(text: string): string {
  const plus4 = ZIP_PLUS4.exec(text);
  if (plus4) return padLostZeros(plus4[1]!, 5, LEADING_ZEROS_LOST.zipcode!);
  if (!DIGITS.test(text)) return text;
  if (text.length >= 8 && text.length <= 9) return text.padStart(9, '0').slice(0, 5);
  return padLostZeros(text, 5, LEADING_ZEROS_LOST.zipcode!);
}

function digitNormaliser(identifier: Identifier & { digits: number }): Normaliser {
  const lost = LEADING_ZEROS_LOST[identifier.name] ?? 0;
  return (value) => {
    const text = cleanText(value);
    if (text === undefined) return undefined;
    const whole = WHOLE_FLOAT.exec(text)?.[1] ?? text;
    if (identifier.name === 'zipcode') return normaliseZip(whole);
    return DIGITS.test(whole) ? padLostZeros(whole, identifier.digits, lost) : whole;
  };
}

/** Full state names become the 2-letter code: the form both GET and POST accept. */
function normaliseState(value: unknown): string | undefined {
  const text = cleanText(value);
  return text === undefined ? undefined : (stateCode(text) ?? text);
}

/** The normaliser for one identifier, chosen once per column rather than per row. */
export function identifierNormaliser(identifier: Identifier): Normaliser {
  if (identifier.digits !== undefined) return digitNormaliser({ ...identifier, digits: identifier.digits });
  if (identifier.name === 'state') return normaliseState;
  return cleanText;
}

/** meta is echoed back verbatim, so only "nothing at all" is dropped; objects travel as JSON text. */
export function metaText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
