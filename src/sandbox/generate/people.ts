import type { Random } from './random.js';

/** The people and firms named on deeds and liens. */

const SURNAMES = ['Smith', 'Johnson', 'Garcia', 'Nguyen', 'Brown', 'Miller', 'Davis', 'Lopez', 'Wilson', 'Kim', 'Patel', 'Clark'];
const FORENAMES = ['James', 'Maria', 'Robert', 'Linda', 'Wei', 'Aisha', 'David', 'Jennifer', 'Carlos', 'Emily', 'Omar', 'Grace'];

/** A name as recorded: a surname (or a firm's name) and, for a person, the forenames. */
export interface Party {
  name: string;
  forenames: string | null;
}

/** The first and second names on a deed or lien (grantee_1 and grantee_2, say). */
export type Parties = readonly [Party, Party | null];

export const person = (random: Random, surname = random.pick(SURNAMES)): Party => ({ name: surname, forenames: random.pick(FORENAMES) });

/** The buyers of a home: one person, or two, most often sharing a surname. */
export function household(random: Random): Parties {
  const first = person(random);
  if (random.chance(0.4)) return [first, null];
  return [first, person(random, random.chance(0.7) ? first.name : undefined)];
}

/** A household with one more person on title: a spouse added, say. */
export const withPartner = (owners: Parties, random: Random): Parties => [owners[0], person(random, owners[0].name)];

const firm = (name: string): Party => ({ name, forenames: null });

/** Builders: the sellers of a home sold new. */
const BUILDERS = ['Lennar Homes LLC', 'Pulte Home Company LLC', 'KB Home', 'Toll Brothers Inc', 'Meritage Homes Corp'].map(firm);

export const builder = (random: Random): Parties => [random.pick(BUILDERS), null];

export interface Lender {
  party: Party;
  /** The lender_type enumeration value for the lender. */
  type: string;
}

const LENDERS: ReadonlyArray<readonly [string, string]> = [
  ['Wells Fargo Bank NA', 'bank'],
  ['JPMorgan Chase Bank NA', 'bank'],
  ['US Bank NA', 'bank'],
  ['Rocket Mortgage LLC', 'mortgage_company'],
  ['Guild Mortgage Company', 'mortgage_company'],
  ['Freedom Mortgage Corp', 'mortgage_company'],
  ['Navy Federal Credit Union', 'credit_union'],
  ['Better Mortgage Corp', 'internet'],
];

/** Named beside the lender on many recorded mortgages, as the lender's nominee. */
export const NOMINEE = firm('Mortgage Electronic Registration Systems Inc');

/** A lender and, to go with it, its lender_type. */
export function lender(random: Random): Lender {
  const [name, type] = random.pick(LENDERS);
  return { party: firm(name), type };
}
