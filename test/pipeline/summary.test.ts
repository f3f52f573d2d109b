import { describe, expect, it } from 'vitest';
import { billedCost } from '../../src/pipeline/pricing.js';
import { RunStats } from '../../src/pipeline/run-stats.js';
import { completedOutcome, formatSummary, summarize } from '../../src/pipeline/summary.js';

const limiter = (stated: boolean, waitedMs = 0) => ({ waitedMs, stated, describe: () => (stated ? '250/60s' : '1000000/60s') });

function statsWith(change: (stats: RunStats) => void): RunStats {
  const stats = new RunStats();
  change(stats);
  return stats;
}

describe('the run summary', () => {
  it('counts in the singular when there is one, and says the waits are for the rate limit, not 429s', () => {
    const stats = statsWith((s) => {
      s.requests = 1;
      s.componentsUsed = 1;
      s.byStatus.ok = 1;
    });
    const text = formatSummary(summarize(stats, limiter(true, 734_300), 'completed'));
    expect(text).toContain('1 request, 1 component');
    expect(text).toContain('rate limit: 734.3 s waited; the service');
    expect(text).not.toContain('0 rate-limit waits');
  });

  it('names 429 refusals separately from pacing', () => {
    const stats = statsWith((s) => {
      s.requests = 3;
      s.rateLimitWaits = 2;
    });
    expect(formatSummary(summarize(stats, limiter(true, 5_000), 'completed'))).toContain(
      '5 s waited, 2 requests refused with 429 and sent again',
    );
  });

  it('groups thousands in its counts and its rate', () => {
    const stats = statsWith((s) => {
      s.requests = 3_782;
      s.componentsUsed = 378_151;
    });
    const text = formatSummary({ ...summarize(stats, limiter(true), 'completed'), itemsPerMinute: 378_151 });
    expect(text).toContain('3,782 requests, 378,151 components');
    expect(text).toContain('378,151 items/min');
  });

  it('says when the limits are only --rate, because the service stated none', () => {
    expect(formatSummary(summarize(new RunStats(), limiter(false), 'completed'))).toContain(
      'paced at --rate 1000000/60s (the service stated no limits)',
    );
  });

  it('gives the cost at list price, in the text and in --report', () => {
    const stats = statsWith((s) => (s.costUsd = 12.249999));
    const summary = summarize(stats, limiter(true), 'completed');
    expect(summary.costUsd).toBe(12.25);
    expect(formatSummary(summary)).toContain('cost: 12.25 USD at list price');
  });

  it('tells rows refused as invalid input from failures', () => {
    const none = { ok: 5, partial: 0, no_content: 1, invalid_input: 0, error: 0, not_sent: 0 };
    expect(completedOutcome(none)).toBe('completed');
    expect(completedOutcome({ ...none, invalid_input: 1 })).toBe('completed with invalid rows');
    expect(completedOutcome({ ...none, invalid_input: 1, error: 1 })).toBe('completed with failures');
  });
});

describe('billedCost', () => {
  it('charges sections answered with data, not 204s, errors or unusable chunks', () => {
    const prices = { 'property/value': 0.25, 'property/school': 0.1 };
    const chunks = [
      { 'property/value': { api_code: 0 }, 'property/school': { api_code: 204 } },
      { 'property/value': { api_code: 0 }, 'property/school': { api_code: 0 } },
      { 'property/value': { api_code: 1001 } },
      null,
      'text',
    ];
    expect(billedCost(chunks, prices)).toEqual({ billed: 3, cost: 0.6 });
    expect(billedCost(undefined, prices)).toEqual({ billed: 0, cost: 0 });
  });
});
