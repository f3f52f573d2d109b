/**
 * The connection settings a user can store, and how each is named in flags, env and config.
 * `otherEnv`: the names other clients of the service read, consulted in this order after `env`.
 */
export const CONNECTION_SETTINGS = [
  {
    name: 'key',
    flag: 'key',
    env: 'PROPDATA_API_KEY',
    otherEnv: ['HC_API_KEY', 'HOUSECANARY_API_KEY'],
    secret: false,
    description: 'API key (HTTP Basic user name)',
  },
  {
    name: 'secret',
    flag: 'secret',
    env: 'PROPDATA_API_SECRET',
    otherEnv: ['HC_API_SECRET', 'HOUSECANARY_API_SECRET'],
    secret: true,
    description: 'API secret (HTTP Basic password)',
  },
  {
    name: 'base-url',
    flag: 'baseUrl',
    env: 'PROPDATA_BASE_URL',
    otherEnv: [],
    secret: false,
    description: 'service base address, e.g. https://api.example.com',
  },
] as const;

/** Defaults for batch runs that use the store; the flag of the same name wins. */
const RUN_SETTINGS = [
  { name: 'max-age', secret: false, description: 'default --max-age: reuse stored answers younger than this (90m, 12h, 30d)' },
  { name: 'max-cost-month', secret: false, description: "default --max-cost-month: the account's budget per UTC month, USD at list price" },
] as const;

/** Where every command's store is; --store (or PROPDATA_STORE) wins. A database URL's password is masked when shown. */
const STORE_SETTINGS = [
  { name: 'store', secret: false, description: 'default --store: a file, or postgres://user@host/db to share it between machines' },
] as const;

export const SETTINGS = [...CONNECTION_SETTINGS, ...RUN_SETTINGS, ...STORE_SETTINGS] as const;

export type SettingName = (typeof SETTINGS)[number]['name'];
export type ConnectionSettingName = (typeof CONNECTION_SETTINGS)[number]['name'];
export type RunSettingName = (typeof RUN_SETTINGS)[number]['name'];

/** A setting by name; `base_url` is `base-url` (the spelling other tools and the env use). */
export function findSetting(name: string) {
  const spelled = name.replaceAll('_', '-');
  return SETTINGS.find((setting) => setting.name === spelled);
}

/** A secret shown to a human: enough to recognise which one is stored, never enough to use. */
export function maskSecret(value: string): string {
  return value.length <= 4 ? '****' : `****${value.slice(-2)}`;
}
