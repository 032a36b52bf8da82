// Console sessions in tests: follow a setup or invitation link, sign in, and call the API with the
// session cookie, the console's Origin and its X-CSRF-Token, as the console in a browser does.
import type { TestApp } from "./app";

export interface ConsoleSession {
  cookie: string;
  csrf: string;
  data: any;
  /** A request as the console makes it: cookie, Origin, and X-CSRF-Token on every method but GET. */
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<{ status: number; headers: Headers; body: any }>;
}

export const ORIGIN = "http://127.0.0.1:3000";

/** `name=value` of a Set-Cookie header, as a browser would send it back. */
export const cookieOf = (headers: Headers) => headers.get("set-cookie")?.split(";")[0] ?? "";

export const tokenOf = (url: string) => url.slice(url.indexOf("#") + 1);

export function sessionFrom(t: TestApp, res: { headers: Headers; body: any }): ConsoleSession {
  const cookie = cookieOf(res.headers);
  const csrf = res.body.data.csrf_token;
  return {
    cookie,
    csrf,
    data: res.body.data,
    call: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has("cookie")) headers.set("cookie", cookie);
      if (!headers.has("origin") && (init.method ?? "GET") !== "GET") headers.set("origin", ORIGIN);
      if (!headers.has("x-csrf-token") && (init.method ?? "GET") !== "GET") headers.set("x-csrf-token", csrf);
      return t.call(path, { ...init, headers });
    },
  };
}

/** A console POST before there is a session (sign-in, invitations): same origin, no token. */
export const publicPost = (t: TestApp, path: string, json: unknown, headers: Record<string, string> = {}) =>
  t.call(`/console/api/auth${path}`, { method: "POST", json, headers: { origin: ORIGIN, ...headers } });

export async function acceptLink(t: TestApp, url: string, password: string, email?: string): Promise<ConsoleSession> {
  const res = await publicPost(t, "/accept-invitation", { token: tokenOf(url), password, ...(email ? { email } : {}) });
  if (res.status !== 200) throw new Error(`accept failed: ${res.status} ${JSON.stringify(res.body)}`);
  return sessionFrom(t, res);
}

export async function signIn(t: TestApp, email: string, password: string, headers: Record<string, string> = {}): Promise<ConsoleSession> {
  const res = await publicPost(t, "/sign-in", { email, password }, headers);
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return sessionFrom(t, res);
}

/** A new account (via the admin API) with an owner who followed an operator's invitation link. */
export async function createOwner(t: TestApp, opts: { tier?: string; email?: string } = {}) {
  const account = await t.admin("POST", "/accounts", { name: `acct-${crypto.randomUUID().slice(0, 8)}`, tier: opts.tier ?? "scale" });
  const email = opts.email ?? `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const inv = await t.admin("POST", `/accounts/${account.body.data.id}/invitations`, { email, role: "owner" });
  const session = await acceptLink(t, inv.body.data.invitation_url, "correct horse battery");
  return { accountId: account.body.data.id as string, email, password: "correct horse battery", session };
}

/**
 * The first owner's link. Embedded (PGlite), the server made the default account and printed a setup
 * link at start. With a Postgres server it makes nothing at start: the operator creates the account and
 * a setup link (an owner invitation without email) through the admin API, as `cli user invite` does.
 */
export async function firstOwnerLink(t: TestApp): Promise<string> {
  if (t.runtime.deps.pg.kind === "pglite") return t.runtime.setupUrl!;
  const account = await t.admin("POST", "/accounts", { name: "default", tier: "scale" });
  const inv = await t.admin("POST", `/accounts/${account.body.data.id}/invitations`, { role: "owner" });
  return inv.body.data.invitation_url;
}
