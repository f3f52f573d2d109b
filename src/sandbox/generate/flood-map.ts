import { dayInPast, isoDay } from './dates.js';
import { randomFor } from './random.js';

const REVISIONS = ['F', 'G', 'H', 'J', 'K', 'L'];

/**
 * The flood map panel a census tract lies on, numbered as FEMA numbers them (county FIPS, C, the
 * panel, its revision letter), with the date the panel took effect: every address in the tract
 * shares them.
 */
export function floodPanel(blockId: string) {
  const random = randomFor('flood-panel', blockId.slice(0, 11));
  return {
    effective_date: isoDay(dayInPast(random, 20, 1)),
    panel_number: `${blockId.slice(0, 5)}C${String(random.int(1, 2500)).padStart(4, '0')}${random.pick(REVISIONS)}`,
  };
}
