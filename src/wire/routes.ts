import { ENDPOINTS, type Endpoint } from '../catalog/index.js';

const BY_PATH = new Map(ENDPOINTS.map((endpoint) => [`/${endpoint.version}/${endpoint.name}`, endpoint]));

/** The catalog endpoint served at `/{version}/{level}/{target}`, or undefined (a 404). */
export function endpointAt(pathname: string): Endpoint | undefined {
  return BY_PATH.get(pathname.replace(/\/+$/, ''));
}
