import { oneOfMessage, unmetRequirements, type ItemRequirement } from '../catalog/index.js';
import { listColumns } from './columns.js';
import type { RowPlan } from './row-plan.js';

/** Where an item's values come from, for the wording of what is missing: a one-off's flags, a library's items, a file's columns. */
export interface ValueSource {
  fromFlags?: boolean | undefined;
  fromItems?: boolean | undefined;
}

const flag = (name: string) => `--${name.replace(/_/g, '-')}`;

/** Why no column gave an identifier the row needs: the header's fault when none feeds it. */
function noColumn(names: readonly string[], rowPlan: RowPlan, source: ValueSource): string {
  if (source.fromFlags) return ` (give ${names.map(flag).join(' or ')})`;
  if (!names.every((name) => rowPlan.unfed.has(name))) return '';
  if (source.fromItems) return ` (its keys: ${listColumns(rowPlan.columns)}; the batch's \`columns\` option maps other names)`;
  return (
    ` (no column is recognised as ${names.join(' or ')}; columns: ${listColumns(rowPlan.columns)}; ` +
    `rename one or use --map COLUMN=${names[0]})`
  );
}

/**
 * The identifiers a row lacks, in a row's words (what makes an item complete is the catalog's
 * rule, itemRequirements): `given` says which it has, or had refused for a wrong value (already reported).
 */
export function missingIdentifiers(
  requirements: readonly ItemRequirement[],
  given: (name: string) => boolean,
  rowPlan: RowPlan,
  source: ValueSource,
): string | undefined {
  const unmet = unmetRequirements(requirements, given);
  if (unmet.length === 0) return undefined;
  const alternatives = unmet[0]!.anyOf;
  if (alternatives.length > 1) {
    const names = alternatives.map((name) => `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`).join(' or ');
    return `needs ${names}${source.fromFlags || source.fromItems ? '' : ' column value'}${noColumn(alternatives, rowPlan, source)}`;
  }
  const missing = unmet.map((requirement) => requirement.anyOf[0]!);
  return `needs a ${missing.join(' and a ')} value${noColumn(missing, rowPlan, source)}`;
}

/** Required parameters a row lacks, each named once (an mget's components share them), then the "at least one of" sets. */
export function missingParams(unmet: readonly ItemRequirement[], source: ValueSource): string[] {
  const names = new Set(unmet.filter((requirement) => requirement.kind === 'param').map((requirement) => requirement.anyOf[0]!));
  const where = (name: string) =>
    source.fromFlags
      ? `${flag(name)} or --param ${name}=...`
      : source.fromItems
        ? `a member of the item, or the batch's \`params\``
        : `a column or --param ${name}=...`;
  return [
    ...[...names].map((name) => `needs a ${name} value (${where(name)})`),
    ...unmet.filter((requirement) => requirement.kind === 'one-of').map(oneOfMessage),
  ];
}
