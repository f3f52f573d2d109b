import { resolveConnection, type ConnectionFlags } from '../config/connection.js';
import { accountOf, SANDBOX_ACCOUNT } from './account.js';

/**
 * The account of the credentials a command would use, resolved as every command resolves them
 * (flags, environment, stored config) but without connecting: `usage` and `store clear` need
 * only to know which partition is meant.
 */
export async function currentAccount(
  options: ConnectionFlags & { sandbox?: boolean },
  env: Record<string, string | undefined>,
): Promise<string> {
  if (options.sandbox) return SANDBOX_ACCOUNT;
  const connection = await resolveConnection(options, env, async () => (await import('../config/config-file.js')).readConfigFile(env));
  return accountOf(connection, false);
}
