/** US states, DC, territories, freely associated states and the military's AE/AA/AP (USPS codes): 2-letter code by full name. The spec lets POST carry either. */
const STATE_NAMES: Readonly<Record<string, string>> = {
  alabama: 'AL',
  alaska: 'AK',
  arizona: 'AZ',
  arkansas: 'AR',
  california: 'CA',
  colorado: 'CO',
  connecticut: 'CT',
  delaware: 'DE',
  'district of columbia': 'DC',
  florida: 'FL',
  georgia: 'GA',
  hawaii: 'HI',
  idaho: 'ID',
  illinois: 'IL',
  indiana: 'IN',
  iowa: 'IA',
  kansas: 'KS',
  kentucky: 'KY',
  louisiana: 'LA',
  maine: 'ME',
  maryland: 'MD',
  massachusetts: 'MA',
  michigan: 'MI',
  minnesota: 'MN',
  mississippi: 'MS',
  missouri: 'MO',
  montana: 'MT',
  nebraska: 'NE',
  nevada: 'NV',
  'new hampshire': 'NH',
  'new jersey': 'NJ',
  'new mexico': 'NM',
  'new york': 'NY',
  'north carolina': 'NC',
  'north dakota': 'ND',
  ohio: 'OH',
  oklahoma: 'OK',
  oregon: 'OR',
  pennsylvania: 'PA',
  'rhode island': 'RI',
  'south carolina': 'SC',
  'south dakota': 'SD',
  tennessee: 'TN',
  texas: 'TX',
  utah: 'UT',
  vermont: 'VT',
  virginia: 'VA',
  washington: 'WA',
  'west virginia': 'WV',
  wisconsin: 'WI',
  wyoming: 'WY',
  'puerto rico': 'PR',
  guam: 'GU',
  'virgin islands': 'VI',
  'american samoa': 'AS',
  'northern mariana islands': 'MP',
  'federated states of micronesia': 'FM',
  'marshall islands': 'MH',
  palau: 'PW',
  'armed forces europe': 'AE',
  'armed forces americas': 'AA',
  'armed forces pacific': 'AP',
};

const CODES = new Set(Object.values(STATE_NAMES));

/** The 2-letter code for a code or full name in any case, or undefined when it is neither. */
export function stateCode(value: string): string | undefined {
  // Most rows give the code itself, and checking a row asks again of the code it was given.
  if (CODES.has(value)) return value;
  const trimmed = value.trim();
  // `D.C.`, `N.Y.`: the dotted abbreviations people write.
  const upper = trimmed.toUpperCase().replace(/^([A-Z])\.\s*([A-Z])\.?$/, '$1$2');
  if (CODES.has(upper)) return upper;
  return STATE_NAMES[trimmed.toLowerCase().replace(/\s+/g, ' ')];
}
