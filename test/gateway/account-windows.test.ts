import { describe, expect, it } from 'vitest';
import { AccountWindows } from '../../src/gateway/account-windows.js';

const T = Date.UTC(2030, 0, 1, 12, 0, 0);

describe("the account's windows, as the gateway states them", () => {
  it('keeps the least remaining any answer stated for a reset, and a window past its reset full again', () => {
    const windows = new AccountWindows();
    expect(windows.headers(T)).toEqual({});
    windows.observe([{ periodSeconds: 6, limit: 250, remaining: 100, resetAt: T + 4_000 }]);
    windows.observe([{ periodSeconds: 6, limit: 250, remaining: 180, resetAt: T + 4_000 }]);
    expect(windows.headers(T)).toEqual({
      'X-RateLimit-Period': '6',
      'X-RateLimit-Limit': '250',
      'X-RateLimit-Remaining': '100',
      'X-RateLimit-Reset': String((T + 4_000) / 1000),
    });
    expect(windows.at(T + 11_000)).toEqual([{ periodSeconds: 6, limit: 250, remaining: 250, resetAt: T + 16_000 }]);
  });

  it('says when components could go: at once while every window has room, else as many resets on as they need', () => {
    const windows = new AccountWindows();
    // Before the service states its windows, nothing is refused on a guess.
    expect(windows.readyAt(10_000, T)).toEqual({ at: T });
    windows.observe([
      { periodSeconds: 1, limit: 20, remaining: 20, resetAt: T + 500 },
      { periodSeconds: 60, limit: 250, remaining: 50, resetAt: T + 30_000 },
    ]);
    expect(windows.readyAt(20, T)).toEqual({ at: T });
    expect(windows.readyAt(21, T)).toEqual({ at: T + 500, periodSeconds: 1 });
    expect(windows.readyAt(60, T)).toEqual({ at: T + 30_000, periodSeconds: 60 });
    expect(windows.readyAt(551, T)).toEqual({ at: T + 150_000, periodSeconds: 60 });
  });
});
