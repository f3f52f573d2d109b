/**
 * The spec's batching rule: every item of one POST has the same set of keys. This is the set as
 * one comparable string, readable in a message (`address,zipcode`). Items prepared by propdata
 * already list their keys in order; sorting is only for those that do not (sort copies the array).
 */
export function keySetOf(item: object): string {
  const keys = Object.keys(item);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) return keys.sort().join(',');
  }
  return keys.join(',');
}
