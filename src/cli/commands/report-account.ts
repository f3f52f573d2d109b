import type { ConnectionFlags } from '../../config/connection.js';
import { PropdataError, UsageError } from '../../errors/index.js';
import type { Store } from '../../store/index.js';
import type { OptionSpec } from '../../options/option-spec.js';

/** `--account`: a local report on one account of the store, named as `store info` and `usage` print it. */
export const REPORT_ACCOUNT_OPTION = {
  flags: '--account <account>',
  description: 'one account of the store, as `propdata store info` names it (needs no credentials)',
} as const satisfies OptionSpec;

type ReportFlags = ConnectionFlags & { account?: string; allAccounts?: boolean; sandbox?: boolean };

/**
 * The account a local report covers (undefined: every one): --account, else every one with
 * --all-accounts, else the credentials' account; with no credentials configured at all, every
 * account. A report reads the local store only: it never needs credentials.
 */
export async function reportedAccount(options: ReportFlags, env: Record<string, string | undefined>): Promise<string | undefined> {
  if (options.account !== undefined) return options.account;
  if (options.allAccounts) return undefined;
  const { currentAccount } = await import('../../store/index.js');
  try {
    return await currentAccount(options, env);
  } catch (error) {
    if (error instanceof PropdataError && error.code === 'E_NO_CREDENTIALS') return undefined;
    throw error;
  }
}

/** An account named with --account must be one the store holds: a typo would report nothing, as if nothing were spent. */
export async function checkAccountIn(store: Store, account: string): Promise<void> {
  const accounts = await store.accounts();
  if (!accounts.includes(account)) {
    throw new UsageError(
      `the store ${store.location} holds no account "${account}"; ` +
        (accounts.length > 0 ? `its accounts: ${accounts.map((name) => `"${name}"`).join(', ')}` : 'it holds none yet'),
    );
  }
}
