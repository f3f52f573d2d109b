/** Types for fixed-windows.mjs, which the bench runs as plain JavaScript and the pacing tests import. */
export interface FixedWindow {
  limit: number;
  periodSeconds: number;
}

export function idealLastSend(firstAt: number, sizes: readonly number[], windows: readonly FixedWindow[]): number;
export function parseWindows(text: string): FixedWindow[];
export function allowedRate(windows: readonly FixedWindow[]): number;
