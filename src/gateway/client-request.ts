import { META, type Endpoint } from '../catalog/index.js';
import { mgetTarget, singleEndpointTarget, type QueryTarget } from '../model/query-target.js';
import { parseGet, parsePost } from '../wire/request-validation.js';

/** A client's data request, read by the service's rules: what it asks, of which items. */
export interface ClientRequest {
  target: QueryTarget;
  /** The endpoints answered per item: an mget's components, else the endpoint. */
  sections: readonly Endpoint[];
  /** Each item's identifiers, parameters (the query string's merged in) and meta, by catalog name. */
  items: Record<string, unknown>[];
  /** Keys the spec does not list: left out of what is sent on, and named in a header, as the sandbox does. */
  ignoredKeys: readonly string[];
}

/**
 * The request as the sandbox reads it (wire/request-validation.ts: the catalog's rules, the same
 * 400 messages), turned into the engine's target and items. Throws RequestRejected for a 400.
 */
export function readClientRequest(
  endpoint: Endpoint,
  method: 'GET' | 'POST',
  url: URL,
  contentType: string | undefined,
  body: string,
): ClientRequest {
  const parsed =
    method === 'GET' ? parseGet(endpoint, url.searchParams, false) : parsePost(endpoint, url.searchParams, contentType, body, false);
  const target = endpoint.mget ? mgetTarget(parsed.sections, endpoint) : singleEndpointTarget(endpoint);
  const items = parsed.items.map((item) => ({
    ...item.identifiers,
    ...item.params,
    ...(item.meta ? { [META.name]: item.meta.value } : {}),
  }));
  return { target, sections: parsed.sections, items, ignoredKeys: parsed.ignoredKeys };
}
