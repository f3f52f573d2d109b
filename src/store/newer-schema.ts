import { StoreError } from '../errors/index.js';

/**
 * A store a newer propdata has brought to a schema this one does not know, whichever driver keeps
 * it: found at opening (no `cause`), or met while a run used it (a newer propdata's first run, on
 * this machine or another, migrated it under this one's statements, which then name a table or a
 * column that is gone: `cause`).
 */
export function newerSchemaFailure(location: string, found: number, known: number, cause?: unknown): StoreError {
  const how = cause === undefined ? 'set it up' : 'changed it while this run used it';
  return new StoreError(
    `cannot use the store ${location}: a newer propdata ${how} (schema ${found}; this one knows up to ${known}); upgrade propdata, or run with --no-store`,
    cause,
  );
}
