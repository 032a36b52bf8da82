// Shared-dashboard test helpers: create a share through the API, open its page and data as a stranger would.
import type { TestApp } from "../helpers/app";

export const P = "/public-api/v1";

export async function createShare(t: TestApp, key: string, body: Record<string, unknown>) {
  const res = await t.call(`${P}/shares`, { method: "POST", key, json: body });
  if (res.status !== 201) throw new Error(`create share failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { share: Record<string, any>; token: string; url: string };
}

/** A viewer's request: no key, maybe a cookie and an address (the test apps trust X-Forwarded-For). */
export function view(
  t: TestApp,
  path: string,
  opts: { cookie?: string; ip?: string; method?: string; form?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? "203.0.113.9" };
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: string | undefined;
  if (opts.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(opts.form).toString();
  }
  return t.request(path, { method: opts.method ?? (opts.form ? "POST" : "GET"), headers, body, redirect: "manual" });
}

/** The cookie pair (name=value) of a Set-Cookie header. */
export const cookiePair = (setCookie: string | null) => (setCookie ?? "").split(";")[0];
