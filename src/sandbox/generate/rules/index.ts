import { AREA_RULES } from './areas.js';
import { BLOCK_RULES } from './block.js';
import { LIEN_RULES } from './liens.js';
import { LISTING_RULES } from './listings.js';
import { LTV_RULES } from './ltv.js';
import { RECORD_RULES } from './records.js';
import type { RuleTable } from './rule.js';
import { VALUATION_RULES } from './valuation.js';

export type { Rule, RuleContext, RuleTable } from './rule.js';

/** Consistency rules by catalog endpoint name (the mirrored endpoint's name for property forms). */
export const RULES: RuleTable = {
  ...VALUATION_RULES,
  ...LIEN_RULES,
  ...LTV_RULES,
  ...LISTING_RULES,
  ...RECORD_RULES,
  ...BLOCK_RULES,
  ...AREA_RULES,
  'zip/hcri': BLOCK_RULES['block/hcri']!,
};
