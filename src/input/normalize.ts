import { stateCode, type Identifier } from '../catalog/index.js';

/** Turns a cell into what is sent, or undefined when there is nothing to send. */
export type Normalizer = (value: unknown) => string | undefined;

const WHITESPACE_RUN = /\s+/g;
/** What WHITESPACE_RUN would change: whitespace other than a space, or two in a row. */
const UNCOLLAPSED = /[^\S ]|\s\s/;
const DIGITS = /^\d+$/;
/** `21136.0`: a whole number written by pandas or a spreadsheet that stored the id as a float. */
const WHOLE_FLOAT = /^(\d+)\.0+$/;
const ZIP_PLUS4 = /^(\d{3,5})[- ](\d{4})$/;

/**
 * Identifiers that spreadsheets store as numbers lose their leading zeros: ZIPs of New England,
 * New Jersey, Puerto Rico (down to 00501), and census ids of states whose FIPS code starts with 0.
 * MSA and metro division codes never start with 0, so they are not padded.
 */
const LEADING_ZEROS_LOST: Readonly<Record<string, number>> = { block_id: 1, blockgroup_id: 1 };

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
  // A JSONL object or array never gets here (notTextOrNumber refuses it first).
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  const trimmed = String(value).trim();
  // Most cells have single spaces only: replacing them with themselves would copy every cell.
  const cleaned = UNCOLLAPSED.test(trimmed) ? trimmed.replace(WHITESPACE_RUN, ' ') : trimmed;
  return cleaned === '' ? undefined : cleaned;
}

function padLostZeros(digits: string, wanted: number, lost: number): string {
  return digits.length < wanted && digits.length >= wanted - lost ? digits.padStart(wanted, '0') : digits;
}

/**
 * ZIP+4 (`02140-1234`, `02140 1234`, `021401234`) becomes the ZIP part the service takes. A ZIP
 * that may have lost leading zeros (`2140`, `601`, `21401234`) is left short: whether a zero was
 * stripped depends on the row's state (repairZip). Anything else is left as given, for validation.
 */
function normalizeZip(text: string): string {
  const plus4 = ZIP_PLUS4.exec(text);
  if (plus4) return plus4[1]!;
  if (!DIGITS.test(text)) return text;
  if (text.length >= 8 && text.length <= 9) return text.slice(0, text.length - 4);
  return text;
}

/** The 5-digit ZIPs of the states, territories and military post offices whose ZIPs start with 0. */
const ZERO_ZIPS: Readonly<Record<string, RegExp>> = {
  NY: /^005/,
  PR: /^00[679]/,
  VI: /^008/,
  MA: /^0(1|2[0-7]|55)/,
  RI: /^02[89]/,
  NH: /^03[0-8]/,
  ME: /^0(39|4)/,
  VT: /^05[0-46-9]/,
  CT: /^06/,
  NJ: /^0[78]/,
  AE: /^09/,
};

/**
 * The one rule, for every input format, that puts back a ZIP's lost leading zeros: a ZIP of 3 or 4
 * digits is made whole where a spreadsheet plainly stripped its zeros, the row's state being one
 * whose ZIPs start with 0 and the padded ZIP one of that state's (2120 in MA is 02120). Otherwise
 * it stays short, and `why` says, for the row's error, why no zero was put back (2120 in MD: no
 * Maryland ZIP starts with 0, so it is not a Massachusetts house bought by mistake). `takesState`:
 * whether the row could have given a state (the zip level takes none). Undefined when the ZIP is
 * not one that may have lost zeros.
 */
export function repairZip(zip: string, state: string | undefined, takesState = true): { zip: string } | { why: string } | undefined {
  if (!/^\d{3,4}$/.test(zip)) return undefined;
  if (state === undefined && !takesState) return { why: 'with no state to tell a lost leading zero by, give all 5 digits' };
  if (state === undefined) return { why: 'a lost leading zero is put back only when the state is given' };
  const padded = zip.padStart(5, '0');
  const zeroZips = ZERO_ZIPS[state.toUpperCase()];
  if (zeroZips === undefined) return { why: `no ${state} ZIP starts with 0, so none was put back` };
  return zeroZips.test(padded) ? { zip: padded } : { why: `${padded} is not a ${state} ZIP either` };
}

/** State FIPS codes that start with 0: a census id that lost its first digit is one of these or none. */
const ZERO_STATE_FIPS = new Set(['01', '02', '04', '05', '06', '08', '09']);

function digitNormalizer(identifier: Identifier & { digits: number }): Normalizer {
  const lost = LEADING_ZEROS_LOST[identifier.name] ?? 0;
  return (value) => {
    const text = cleanText(value);
    if (text === undefined) return undefined;
    const whole = WHOLE_FLOAT.exec(text)?.[1] ?? text;
    if (identifier.name === 'zipcode') return normalizeZip(whole);
    if (!DIGITS.test(whole)) return whole;
    const padded = padLostZeros(whole, identifier.digits, lost);
    // A census id whose state code would then not be one (00, 03, 07) was not cut short: refused as given.
    return padded === whole || ZERO_STATE_FIPS.has(padded.slice(0, 2)) ? padded : whole;
  };
}

/** Full state names become the 2-letter code: the form both GET and POST accept. */
function normalizeState(value: unknown): string | undefined {
  const text = cleanText(value);
  return text === undefined ? undefined : (stateCode(text) ?? text);
}

/** The normalizer for one identifier, chosen once per column rather than per row. */
export function identifierNormalizer(identifier: Identifier): Normalizer {
  if (identifier.digits !== undefined) return digitNormalizer({ ...identifier, digits: identifier.digits });
  if (identifier.name === 'state') return normalizeState;
  return cleanText;
}

/** meta is echoed back verbatim, so only "nothing at all" is dropped; objects travel as JSON text. */
export function metaText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
