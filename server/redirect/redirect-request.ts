// One redirect request as every step of the redirect reads it (targeting, the click limit, the click
// record, the 302): made once by the fast path or the route, then passed whole.
import type { CachedLink } from "../links/cache";
import type { clientAddress } from "../http/request-context";

/** The server a request came through (its peer address is the client's, unless behind a trusted proxy). */
export type Peer = Parameters<typeof clientAddress>[1];

export interface RedirectRequest {
  request: Request;
  server: Peer;
  link: CachedLink;
  /** The short URL's query with its "?" ("" when none); serveLink removes the QR marker. */
  search: string;
  /** The User-Agent header ("" when none). */
  ua: string;
  /** Asked by the fast path, which bypasses the app's request-id plumbing: the click id is the answer's X-Request-Id. */
  fast: boolean;
}
