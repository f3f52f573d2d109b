import { DATA_DATE, addDays, dayInPast, isoDay } from './dates.js';
import { randomFor } from './random.js';

/**
 * Open federal disaster declarations of a county. A declaration's title and its incident type are
 * drawn together (a tornado title is filed as a Tornado), only where such incidents happen, and
 * from the county alone: every address in a county is in the same disasters.
 */

const TERRITORIES = ['PR', 'VI', 'GU', 'AS', 'MP'];
const HURRICANE_COAST = new Set([
  'TX',
  'LA',
  'MS',
  'AL',
  'FL',
  'GA',
  'SC',
  'NC',
  'VA',
  'MD',
  'DE',
  'NJ',
  'NY',
  'CT',
  'RI',
  'MA',
  'HI',
  ...TERRITORIES,
]);
const WILDFIRE_STATES = new Set(['CA', 'OR', 'WA', 'ID', 'MT', 'NV', 'AZ', 'NM', 'CO', 'UT', 'WY', 'TX', 'OK', 'AK', 'HI']);
const WARM_STATES = new Set(['FL', 'HI', ...TERRITORIES]);
const NO_TORNADOES = new Set(['AK', 'HI', ...TERRITORIES]);

interface DisasterKind {
  title: string;
  type: string;
  occursIn: (state: string) => boolean;
}

const anywhere = () => true;

const KINDS: readonly DisasterKind[] = [
  { title: 'SEVERE STORMS AND FLOODING', type: 'Severe Storm', occursIn: anywhere },
  { title: 'SEVERE STORMS, STRAIGHT-LINE WINDS, AND FLOODING', type: 'Severe Storm', occursIn: anywhere },
  { title: 'FLOODING', type: 'Flood', occursIn: anywhere },
  { title: 'SEVERE WINTER STORM', type: 'Winter Storm', occursIn: (state) => !WARM_STATES.has(state) },
  { title: 'SEVERE STORMS, TORNADOES, AND STRAIGHT-LINE WINDS', type: 'Tornado', occursIn: (state) => !NO_TORNADOES.has(state) },
  { title: 'WILDFIRES', type: 'Fire', occursIn: (state) => WILDFIRE_STATES.has(state) },
  { title: 'HURRICANE', type: 'Hurricane', occursIn: (state) => HURRICANE_COAST.has(state) },
];

/** Major disaster numbers run in order of declaration, some 80 a year, reaching this one by the data month. */
const LATEST_DISASTER_NUM = 4860;
const DECLARATIONS_PER_DAY = 80 / 365;

export function openDisasters(countyFips: string, state: string) {
  const random = randomFor('fema', countyFips);
  const kinds = KINDS.filter((kind) => kind.occursIn(state));
  const count = random.int(0, 2);
  const chosen = new Set(Array.from({ length: count }, () => random.pick(kinds)));
  const disasters = [...chosen].map((kind) => {
    // Declared (up to 40 days after the start) before the data were last retrieved.
    const start = dayInPast(random, 2, 0.2);
    const declared = addDays(start, random.int(3, 40));
    const daysAgo = (DATA_DATE.getTime() - declared.getTime()) / 86_400_000;
    return {
      declared_date: isoDay(declared),
      start_date: isoDay(start),
      end_date: random.chance(0.7) ? null : isoDay(addDays(start, random.int(5, 30))),
      fema_disaster_num: LATEST_DISASTER_NUM - Math.round(daysAgo * DECLARATIONS_PER_DAY) - random.int(0, 3),
      fips: countyFips,
      title: kind.title,
      type: kind.type,
    };
  });
  return disasters.sort((a, b) => b.declared_date.localeCompare(a.declared_date));
}
