import { stateCode } from './states.js';
import { LEVEL_SPECS } from './levels.js';
import type { Endpoint, Identifier, Level, Param } from './types.js';

/**
 * The spec's request rules, interpreted from catalog data. The client validates rows with them
 * before sending and the sandbox enforces them as the service would: one implementation for both.
 * Each check returns the reason a value is wrong, or undefined when it is fine.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function checkDate(param: Param, text: string): string | undefined {
  const match = ISO_DATE.exec(text);
  const date = new Date(`${text}T00:00:00Z`);
  if (!match || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) {
    return `${param.name} must be an ISO date (yyyy-mm-dd), got "${text}"`;
  }
  if (param.firstOfMonth && match[3] !== '01') {
    return `${param.name} must be the first day of a month (yyyy-mm-01), got "${text}"`;
  }
  return undefined;
}

function checkNumber(param: Param, text: string): string | undefined {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) return `${param.name} must be a number, got "${text}"`;
  if (param.type === 'int' && !Number.isInteger(value)) return `${param.name} must be a whole number, got "${text}"`;
  if (param.allowed && !param.allowed.includes(value)) {
    return `${param.name} accepts only ${param.allowed.join(', ')}, got "${text}"`;
  }
  if (param.step !== undefined && !Number.isInteger(value / param.step)) {
    return `${param.name} must be a whole or half number, got "${text}"`;
  }
  if (param.min !== undefined && value < param.min) return `${param.name} must be at least ${param.min}, got "${text}"`;
  return undefined;
}

export function checkParam(param: Param, value: unknown): string | undefined {
  const text = String(value).trim();
  if (param.enum && !param.enum.includes(text)) {
    return `${param.name} must be one of ${param.enum.join(', ')}, got "${text}"`;
  }
  switch (param.type) {
    case 'date':
      return checkDate(param, text);
    case 'int':
    case 'number':
      return checkNumber(param, text);
    case 'string':
      return undefined;
  }
}

/** The value a parameter is sent as: numbers as JSON numbers, everything else as trimmed text. */
export function paramValue(param: Param, value: unknown): string | number {
  const text = String(value).trim();
  return param.type === 'int' || param.type === 'number' ? Number(text) : text;
}

/** ASCII digits, as `\d` reads them: with the length checked apart, one pattern serves every digit count. */
const ALL_DIGITS = /^\d+$/;

export function checkIdentifier(identifier: Identifier, value: unknown): string | undefined {
  const text = String(value).trim();
  if (identifier.digits !== undefined && !(text.length === identifier.digits && ALL_DIGITS.test(text))) {
    return `${identifier.name} must be ${identifier.digits} digits, got "${text}"`;
  }
  if (identifier.name === 'state' && stateCode(text) === undefined) {
    return `state must be a 2-letter abbreviation or a full US state name, got "${text}"`;
  }
  return undefined;
}

/**
 * One condition a complete item meets: at least one of `anyOf` has a value. What makes an item
 * complete is stated here once, as data; the preparer words an unmet one for a row or the command
 * line, the sandbox as the service's 400.
 * - `identifier`: the level's identifiers (address or slug for a property; each of the others).
 * - `param`: a parameter `endpoint` requires (one name).
 * - `one-of`: `endpoint`'s "at least one of" (value_details_adjusted's adjustments).
 */
export interface ItemRequirement {
  kind: 'identifier' | 'param' | 'one-of';
  anyOf: readonly string[];
  /** The endpoint asking for a parameter; absent for identifiers, which the level asks for. */
  endpoint?: Endpoint;
}

/**
 * What an item of `level` sent to `endpoints` (one, or the components of an mget) must carry: the
 * identifier requirements first, then per endpoint its "at least one of" and its required parameters.
 */
export function itemRequirements(level: Level, endpoints: readonly Endpoint[]): ItemRequirement[] {
  const spec = LEVEL_SPECS[level];
  const requirements: ItemRequirement[] =
    spec.rule === 'address-or-slug'
      ? [{ kind: 'identifier', anyOf: ['address', 'slug'] }]
      : spec.identifiers.map((identifier) => ({ kind: 'identifier', anyOf: [identifier.name] }));
  for (const endpoint of endpoints) {
    if (endpoint.requireOneOf) requirements.push({ kind: 'one-of', anyOf: endpoint.requireOneOf, endpoint });
    for (const param of endpoint.params) {
      if (param.required) requirements.push({ kind: 'param', anyOf: [param.name], endpoint });
    }
  }
  return requirements;
}

/** The requirements an item leaves unmet, in order; `present` says whether a key has a value. */
export function unmetRequirements(requirements: readonly ItemRequirement[], present: (name: string) => boolean): ItemRequirement[] {
  return requirements.filter((requirement) => !requirement.anyOf.some(present));
}

/** The words for an unmet "at least one of", the same for a row and for the service's 400. */
export function oneOfMessage(requirement: ItemRequirement): string {
  return `${requirement.endpoint?.name ?? 'the item'} needs at least one of ${requirement.anyOf.join(', ')}`;
}
