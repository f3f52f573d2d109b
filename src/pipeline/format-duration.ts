/** A span for people: seconds under a minute, minutes under two hours, then hours. */
export function formatDuration(minutes: number): string {
  if (minutes < 1) return `${Math.ceil(minutes * 60)} s`;
  if (minutes < 120) return `${Math.ceil(minutes)} min`;
  return `${(minutes / 60).toFixed(1)} h`;
}
