import { describe, expect, it } from 'vitest';
import { DEFAULT_THROTTLE_POLICY as POLICY, type ThrottlePolicy } from '../../src/policy/policy.js';
import { readDoc } from '../helpers/docs.js';

const GUIDE = 'docs/pacing.md';

/** The guide's prose runs over line breaks: compared with single spaces. */
const prose = readDoc(GUIDE).replace(/\s+/g, ' ');

/** How the guide words a value; one it has no word for fails, so that a new value gets its words. */
function worded(words: Record<number, string>, value: number): string {
  const word = words[value];
  if (word === undefined) throw new Error(`the pacing guide has no words for ${value}: add them here and to ${GUIDE}`);
  return word;
}

const part = (value: number) => worded({ 0.1: 'tenth', 0.2: 'fifth', 0.25: 'quarter' }, value);
const percent = (value: number) => worded({ 0.005: 'half a percent', 0.01: 'one percent' }, value);
const count = (value: number) => worded({ 1: 'one', 2: 'two', 3: 'three' }, value);
const seconds = (ms: number) => (ms === 1_000 ? 'second' : `${ms / 1000} s`);

/**
 * Each pacing setting as the pacing guide's sections "The windows", "Several jobs on one account"
 * and "What the start grace costs" state it, built from the policy table (src/policy/policy.ts): change a
 * default there and this says which sentence to change.
 */
const STATED: [keyof ThrottlePolicy | `${keyof ThrottlePolicy} and ${keyof ThrottlePolicy}`, string][] = [
  ['firstRequestComponents', `The first request is small (${POLICY.firstRequestComponents} components) and goes alone`],
  ['initialPerMinute', `\`--rate\` (default ${POLICY.initialPerMinute} components a minute, the self-serve plan)`],
  ['transitMs', `A request sent in the ${POLICY.transitMs} ms before a reset is counted in the next window as well`],
  [
    'marginFraction and minMarginMs',
    `a margin: ${percent(POLICY.marginFraction)} of the window, at least ${POLICY.minMarginMs} ms ` +
      `(${60_000 * POLICY.marginFraction} ms after a minute's reset)`,
  ],
  ['recheckMs', `asks again every ${POLICY.recheckMs} ms`],
  [
    'startGraceMs and startGracePart',
    `In its first ${seconds(POLICY.startGraceMs)} (at most a ${part(POLICY.startGracePart)} of the shortest window) a run takes no more than 1/${POLICY.assumedClients + 1} of a window`,
  ],
  ['staleAfterPeriods', `has not asked for ${count(POLICY.staleAfterPeriods)} periods`],
  ['probeWaitMs', `the others wait (up to ${POLICY.probeWaitMs / 1000} s) for its answer`],
  [
    'startGraceMs and startGracePart',
    `for a ${seconds(POLICY.startGraceMs)} or a ${part(POLICY.startGracePart)} of the shortest window if less`,
  ],
  ['assumedClients', `assuming ${POLICY.assumedClients} clients whatever it sees`],
  ['sharedPart', `in the first ${part(POLICY.sharedPart)} of each window it takes at most 1/${POLICY.assumedClients + 1} of the window`],
  ['assumedClients', `each of at most 1/${POLICY.assumedClients} of what the latest answer left`],
  ['scrambleRounds', `a job sends at most one request per 1/${POLICY.scrambleRounds} of it`],
  ['sharedPart', `a job started after the others' first ${part(POLICY.sharedPart)} of a window is refused once`],
  [
    'startGraceMs and startGracePart',
    `(the last ${part(POLICY.startGracePart)} of a 2 s window, the last ${seconds(POLICY.startGraceMs)} of a minute)`,
  ],
];

describe("the pacing guide's numbers", () => {
  for (const [setting, sentence] of STATED) {
    it(`state the policy's ${setting}`, () => {
      expect(prose.includes(sentence), `${GUIDE} no longer says "${sentence}"`).toBe(true);
    });
  }
});
