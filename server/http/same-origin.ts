// Cross-site request checks for cookie-authenticated requests (console sessions and the sign-in forms).
// A browser always tells where a request comes from: `Origin` on every method but same-origin GET/HEAD,
// `Sec-Fetch-Site` on everything. Requests from other origins are refused before anything is read.
import { AppError } from "../errors";
import { secretMatches } from "./bearer";

const SAFE = new Set(["GET", "HEAD"]);

/** Throws CROSS_SITE_REQUEST unless the request comes from its own origin or one of `origins`. */
export function checkSameOrigin(request: Request, origins: readonly string[]): void {
  const origin = request.headers.get("origin");
  if (origin !== null) {
    if (origin === new URL(request.url).origin || origins.includes(origin)) return;
    throw new AppError("CROSS_SITE_REQUEST", `Requests from ${origin} may not use a console session`);
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new AppError("CROSS_SITE_REQUEST", "Cross-site requests may not use a console session");
  }
  if (!SAFE.has(request.method) && site === null) {
    throw new AppError("CROSS_SITE_REQUEST", "Origin header required with a console session");
  }
}

export const csrfTokenMatches = (given: string | null, expected: string) => !!given && secretMatches(given, expected);
