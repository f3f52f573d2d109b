import type { ObjectSchema } from '../../src/catalog/schema.js';
import { addressInfo } from '../../src/catalog/shapes.js';
import { objectType, schemaMembers } from './schema-type.js';

/** Members an unresolved address_info still fills in; every other one is null. */
const KEPT_WHEN_UNRESOLVED = ['geo_precision', 'status'];

/**
 * address_info's type. The catalog's shape is a resolved address's. For an address that did not
 * resolve, the service has nothing canonical to report: every field is null but geo_precision,
 * `unknown`, and status, which keeps the identifiers as sent (src/sandbox/generate/address-info.ts,
 * after the service's recorded answers). Typing only the first would promise strings that are null,
 * so the type is both, told apart by status.match.
 */
export function addressInfoType(): string {
  const status = addressInfo.fields.status as ObjectSchema;
  const statusWith = (match: boolean) => objectType(schemaMembers(status.fields, { match: String(match) }));
  const resolved = objectType(schemaMembers(addressInfo.fields, { status: statusWith(true) }));
  const unresolvedNulls = Object.keys(addressInfo.fields).filter((name) => !KEPT_WHEN_UNRESOLVED.includes(name));
  const unresolved = objectType(
    schemaMembers(addressInfo.fields, {
      ...Object.fromEntries(unresolvedNulls.map((name) => [name, 'null'])),
      geo_precision: "'unknown'",
      status: statusWith(false),
    }),
  );
  return `${resolved} | ${unresolved}`;
}
