export { openExistingStore, openStore } from './open-store.js';
export type {
  AnswerCount,
  ClaimResult,
  ClearScope,
  FoundItem,
  Freshness,
  KeptAnswer,
  KeptSection,
  SectionClaim,
  Store,
  StoreEntry,
  StoreInfo,
  StoreOptions,
  StoreProblems,
} from './store-api.js';
export type { ClientKey, KeySpend, KeyStore, KeyUsageQuery } from './key-store.js';
export type { RequestRecord, ReuseRecord, Usage, UsageFigures, UsageGrouping, UsageQuery } from './spend.js';
export { USAGE_GROUPINGS } from './spend.js';
export { accountId, accountOf, SANDBOX_ACCOUNT } from './account.js';
export { currentAccount } from './current-account.js';
export { defaultStorePath, journalDirFor, storePathFrom } from './store-path.js';
export { OutageTolerantStore, type OutageEvents } from './outage.js';
export { foldPending } from './pending.js';
