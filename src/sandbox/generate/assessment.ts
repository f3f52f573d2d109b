import type { PropertyFacts } from './facts.js';
import { randomFor, round } from './random.js';

/**
 * The property's latest assessment, drawn once: details and details_enhanced report the same one.
 * The assessed value lies below the market value, and the tax is a county's rate of it.
 */
export function latestAssessment(placeKey: string, facts: PropertyFacts) {
  const random = randomFor('assessment', placeKey);
  const year = random.chance(0.8) ? 2024 : 2023;
  const assessedValue = Math.round(facts.valueMean * random.float(0.55, 0.95, 3));
  return { apn: facts.fields.apn, year, assessedValue, taxAmount: round(assessedValue * random.float(0.008, 0.022, 5), 2) };
}
