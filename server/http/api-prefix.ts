/** Where the public API lives; the admin API is under ADMIN_PREFIX. */
export const API_PREFIX = "/public-api/v1";
export const ADMIN_PREFIX = "/admin/v1";

/**
 * The path of a request URL without parsing the whole URL (called for every request). Bun hands over a
 * path alone (`/healthz`) when the Host header is not a valid host; that is its own path.
 */
export function pathOf(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/** Whether `path` is `prefix` or below it. */
export const isUnder = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + "/");

/** The console's own routes (session cookie only): people, sessions, team, keys, account. */
export const CONSOLE_API_PREFIX = "/console/api";
