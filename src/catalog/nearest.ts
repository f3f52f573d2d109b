/** Levenshtein distance, for "did you mean" suggestions on mistyped names. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Up to `limit` candidates close to `input`: containing it, or within a third of its length in edits. */
export function nearest(input: string, candidates: readonly string[], limit = 3): string[] {
  const needle = input.toLowerCase();
  return candidates
    .map((candidate) => ({ candidate, score: candidate.includes(needle) ? 0 : distance(needle, candidate) }))
    .filter(({ score }) => score <= Math.max(2, Math.ceil(needle.length / 3)))
    .sort((x, y) => x.score - y.score || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
