// What a custom alias may be. This module imports nothing: the console bundles it as it is, so the link
// form says what the API would refuse before sending it.
export const ALIAS_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;

/** Short codes that would shadow our own paths. */
export const RESERVED_CODES: ReadonlySet<string> = new Set([
  "public-api",
  "admin",
  "cdn",
  "healthz",
  "livez",
  "readyz",
  "metrics",
  "dashboard",
  "console",
  "widgets",
  "widgets.js",
  "t.js",
  "t",
  "tracker",
  "api",
  "docs",
  "static",
  "assets",
  "favicon.ico",
  "robots.txt",
  "login",
  "logout",
  "app",
  "www",
  "_svc",
]);

/** Why an alias would be refused (the API's words), or null when it would not. */
export function aliasProblem(alias: string): string | null {
  if (!ALIAS_PATTERN.test(alias)) return "must be 3 to 64 characters of A-Z, a-z, 0-9, _ and -";
  if (RESERVED_CODES.has(alias.toLowerCase())) return `"${alias}" is reserved`;
  return null;
}
