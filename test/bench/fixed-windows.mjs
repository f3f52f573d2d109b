/**
 * The sandbox's windows are fixed and aligned to the epoch (a 2 s window runs from one even
 * second to the next). Given when the first request went out and the sizes of the requests
 * that were answered, in order, this is when a perfect client would have sent its last one:
 * each request as soon as every window has room for it. Infinity when a request is larger
 * than some window, which no waiting can fix.
 */
export function idealLastSend(firstAt, sizes, windows) {
  const states = windows.map((window) => ({ ...window, start: -1, used: 0 }));
  let at = firstAt;
  for (const size of sizes) {
    if (states.some((state) => size > state.limit)) return Infinity;
    for (;;) {
      for (const state of states) {
        const periodMs = state.periodSeconds * 1000;
        const start = Math.floor(at / periodMs) * periodMs;
        if (start !== state.start) Object.assign(state, { start, used: 0 });
      }
      const full = states.filter((state) => state.used + size > state.limit);
      if (full.length === 0) break;
      at = Math.max(...full.map((state) => state.start + state.periodSeconds * 1000));
    }
    for (const state of states) state.used += size;
  }
  return at;
}

/** `100/2,250/60` as the sandbox's --rate-limit reads it. */
export function parseWindows(text) {
  return text.split(',').map((part) => {
    const [limit, periodSeconds] = part.split('/').map(Number);
    return { limit, periodSeconds };
  });
}

/** The long-run rate the windows allow together, components per second: the tightest one. */
export function allowedRate(windows) {
  return Math.min(...windows.map((window) => window.limit / window.periodSeconds));
}
