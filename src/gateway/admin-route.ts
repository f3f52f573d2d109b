import type { IncomingMessage } from 'node:http';
import { errorReply } from '../wire/replies.js';
import type { GatewayParts, Handled } from './gateway-parts.js';
import { refusalReply } from './logins.js';
import { gatewayStatus, PAGE_HEADER, STATUS_PATH, type GatewayStatus } from './status.js';
import { PAGE_PATHS, STATUS_CSS, STATUS_HTML, STATUS_JS } from './status-page.js';

/** The page's files are the page's own: nothing from elsewhere, no inline script or style, no framing. */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** A client asks for the admin key on a 401 with this (user `admin`). */
const ASK_FOR_LOGIN = { 'WWW-Authenticate': 'Basic realm="propdata gateway", charset="UTF-8"' };

/** The status as the page reads it: the gateway's parts at this moment. */
export function statusOf(parts: GatewayParts): GatewayStatus {
  const { settings } = parts;
  const now = settings.clock.now();
  return gatewayStatus({
    now,
    startedAt: parts.startedAt,
    windows: settings.upstream.windows(),
    waiting: settings.upstream.waiting(),
    activity: parts.activity.snapshot(now),
    figures: parts.book.figures(),
    keys: parts.ring.keys,
    maxCostMonth: settings.maxCostMonth,
    slowedAddresses: parts.throttle.addresses(now),
  });
}

const file = (body: string, contentType: string): Handled => ({ reply: { status: 200, body, contentType, headers: PAGE_HEADERS } });

/** A browser asks for it of every page: no icon. */
const FAVICON = '/favicon.ico';

/** The paths the operator's status page is served at. */
export function isAdminPath(pathname: string): boolean {
  return ['/', STATUS_PATH, PAGE_PATHS.script, PAGE_PATHS.style, FAVICON].includes(pathname);
}

/**
 * The status page and its JSON. The page's HTML, script and style hold no figure: a browser loads
 * them without a key, and the page asks for the admin key (or takes it from the URL it was opened
 * with) to read the JSON, which needs it (user `admin`). A client other than the page (curl, a
 * browser opening the JSON itself) is asked for it as HTTP asks, with a Basic challenge.
 */
export async function adminRoute(parts: GatewayParts, request: IncomingMessage, pathname: string): Promise<Handled> {
  if (pathname === PAGE_PATHS.script) return file(STATUS_JS, 'text/javascript; charset=utf-8');
  if (pathname === PAGE_PATHS.style) return file(STATUS_CSS, 'text/css; charset=utf-8');
  if (pathname === FAVICON) return { reply: { status: 204 } };
  if (request.method !== 'GET') return { reply: errorReply(405, `${request.method ?? ''} is not supported: use GET`, { Allow: 'GET' }) };
  if (pathname === '/') return file(STATUS_HTML, 'text/html; charset=utf-8');
  const login = await parts.logins.admin(request);
  if ('refused' in login) return refusalReply(login.refused, 'wrong admin key', request.headers[PAGE_HEADER] ? {} : ASK_FOR_LOGIN);
  return { reply: { status: 200, body: statusOf(parts) } };
}
