import { abbreviateDirectionals } from './address-words.js';
import { KNOWN_HOUSES } from './known-houses.js';

/** `<state>|<city key>|<street name>` → the book's houses on that street: [building number, ZIP], by number. */
type Streets = ReadonlyMap<string, ReadonlyArray<readonly [number, string]>>;

let streets: Streets | undefined;

/** A street without its building number, directionals abbreviated: "north main st" and "n main st" are one. */
const streetNameOf = (street: string) => abbreviateDirectionals(street.replace(/^\d\S*\s*/, ''));

function readBook(): Streets {
  const book = new Map<string, Array<readonly [number, string]>>();
  for (const line of KNOWN_HOUSES.split('\n')) {
    if (line === '') continue;
    const [state, city, street, zip] = line.split('\t') as [string, string, string, string];
    const key = `${state}|${city}|${streetNameOf(street)}`;
    const houses = book.get(key) ?? [];
    houses.push([Number.parseInt(street, 10), zip]);
    book.set(key, houses);
  }
  for (const houses of book.values()) houses.sort((a, b) => a[0] - b[0]);
  return book;
}

/**
 * The ZIP of a house asked by city and state that the sandbox's address book knows (real houses,
 * known-houses.ts), else of the nearest number the book knows on the same street of that city: a
 * street's houses near one another share a ZIP. Undefined for a street the book does not know.
 * `street` is in ASCII, its building number first; `city` is a cityKey.
 */
export function knownZip(street: string, city: string, state: string): string | undefined {
  streets ??= readBook();
  const houses = streets.get(`${state}|${city}|${streetNameOf(street)}`);
  if (!houses) return undefined;
  const number = Number.parseInt(street, 10);
  let nearest = houses[0]!;
  for (const house of houses) if (Math.abs(house[0] - number) < Math.abs(nearest[0] - number)) nearest = house;
  return nearest[1];
}
