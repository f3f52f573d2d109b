/** The connection settings a user can store, and how each is named in flags, env and config. */
export const SETTINGS = [
  { name: 'key', flag: 'key', env: 'PROPDATA_API_KEY', secret: false, description: 'API key (HTTP Basic user name)' },
  { name: 'secret', flag: 'secret', env: 'PROPDATA_API_SECRET', secret: true, description: 'API secret (HTTP Basic password)' },
  { name: 'base-url', flag: 'baseUrl', env: 'PROPDATA_BASE_URL', secret: false, description: 'service base address, e.g. https://api.example.com' },
] as const;

export type SettingName = (typeof SETTINGS)[number]['name'];

export function findSetting(name: string) {
  return SETTINGS.find((setting) => setting.name === name);
}

/** A secret shown to a human: enough to recognise which one is stored, never enough to use. */
export function maskSecret(value: string): string {
  return value.length <= 4 ? '****' : `****${value.slice(-2)}`;
}
