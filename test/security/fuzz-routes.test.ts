// Property-based fuzzing of every route of a real server process (spawned `bun server/main.ts`): the
// routes and their fields come from the server's own OpenAPI document, plus the routes outside it.
// Each case sends one hostile request byte for byte and checks what an attacker would try to get:
// no 500, no path or stack in the answer, every error in the envelope, nothing stored from a refused
// request, and /healthz still answering. FUZZ_RUNS sets the number of cases (FUZZ_SEED replays a run).
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { join } from "node:path";
import { ERROR_STATUS } from "../../server/errors";
import { encodeRequest, sendRaw, type RawResponse } from "./raw-http";
import { bodyCase, CONTENT_TYPES, headerValue, hostHeader, pathValue, queryPairs, type BodyCase } from "./hostile-inputs";
import { ADMIN_TOKEN, startServerProcess, type ServerProcess } from "./server-process";
import { startReceiver, type Receiver } from "../webhooks/receiver";

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const ROOT = join(import.meta.dir, "..", "..");
const P = "/public-api/v1";

interface Route {
  method: string;
  path: string;
  query: string[];
  fields: string[];
}
interface Owner {
  id: string;
  key: string;
  link: { id: string; short_code: string };
  campaignId: string;
  webhookId: string;
  domainId: string;
}

let s: ServerProcess;
let receiver: Receiver;
let a: Owner;
let b: Owner;
/** The account whose admin routes are fuzzed (A's own tier and key must stay as they are). */
let c: { id: string; keyId: string; memberId: string };
let routes: Route[];

async function api(key: string, method: string, path: string, json?: unknown) {
  const res = await fetch(`${s.url}${P}${path}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function owner(): Promise<Owner> {
  const { id, key } = await s.account("scale");
  const link = (
    await api(key, "POST", "/links", { url: "https://example.com/fuzz", title: "t", description: "d", track_conversions: true })
  ).body.data;
  const campaignId = (await api(key, "POST", "/campaigns", { name: "fuzz" })).body.data.id;
  const webhookId = (await api(key, "POST", "/webhooks", { url: receiver.url, events: ["link.created", "link.updated", "conversion"] }))
    .body.data.id;
  const domainId = (await api(key, "POST", "/domains", { name: `d${crypto.randomUUID().slice(0, 8)}.example.com` })).body.data.id;
  return { id, key, link, campaignId, webhookId, domainId };
}

beforeAll(async () => {
  console.log(`fuzz-routes: fast-check seed ${SEED} (FUZZ_SEED=${SEED} to replay), ${RUNS} runs (FUZZ_RUNS)`);
  receiver = startReceiver(() => new Response("ok"));
  s = await startServerProcess({ WEBHOOK_ALLOW_INSECURE: "true", WEBHOOK_RETRY_DELAYS_MS: "100,100" });
  a = await owner();
  b = await owner();
  const acc = await s.admin("POST", "/accounts", { name: "admin-fuzz", tier: "free" });
  const key = await s.admin("POST", `/accounts/${acc.body.data.id}/keys`, { name: "k", scopes: ["links:read"] });
  const member = await s.admin("POST", `/accounts/${acc.body.data.id}/members`, { email: "m@example.com", role: "viewer" });
  c = { id: acc.body.data.id, keyId: key.body.data.id, memberId: member.body.data.id };
  routes = await routeList();
});

afterAll(async () => {
  await s?.stop();
  receiver?.stop();
});

/** Every operation of the OpenAPI document, and the routes it leaves out (redirects, assets, operations). */
async function routeList(): Promise<Route[]> {
  const list: Route[] = [];
  const documents = [
    await fetch(`${s.url}${P}/docs/json`),
    await fetch(`${s.url}/admin/v1/openapi.json`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
  ];
  for (const res of documents) {
    const doc = (await res.json()) as any;
    // Paths are relative to the document's server (/public-api/v1 or /admin/v1).
    const base: string = doc.servers[0].url;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const schema = op.requestBody?.content?.["application/json"]?.schema ?? {};
        list.push({
          method: method.toUpperCase(),
          path: base + path,
          query: (op.parameters ?? []).filter((p: any) => p.in === "query").map((p: any) => p.name),
          fields: Object.keys(schema.properties ?? schema.items?.properties ?? {}),
        });
      }
    }
  }
  if (list.length < 40) throw new Error(`the OpenAPI document lists only ${list.length} operations`);
  const extra = (method: string, path: string, fields: string[] = []) => list.push({ method, path, query: ["q", "utm_source"], fields });
  extra("GET", "/{code}");
  extra("HEAD", "/{code}");
  extra("POST", "/{code}", ["password"]);
  extra("GET", "/healthz");
  extra("GET", "/livez");
  extra("GET", "/readyz");
  extra("GET", "/metrics");
  extra("GET", "/t.js");
  extra("GET", "/widgets.js");
  extra("GET", "/dashboard");
  extra("GET", "/cdn/og/{code}");
  extra("OPTIONS", `${P}/journey/events`);
  extra("OPTIONS", `${P}/links`);
  return list;
}

/** Values for a path parameter: the fuzzed accounts' real ids first, then anything. */
function idsFor(route: Route, name: string): string[] {
  const family = route.path.split("/")[3];
  if (route.path.startsWith("/admin")) {
    if (name === "id") return [c.id, b.id];
    if (name === "key_id") return [c.keyId];
    return [c.memberId];
  }
  if (name === "code") return [a.link.short_code, b.link.short_code, "healthz", "t.js"];
  const byFamily: Record<string, (o: Owner) => string> = {
    links: (o) => o.link.id,
    journey: (o) => o.link.id,
    campaigns: (o) => o.campaignId,
    webhooks: (o) => o.webhookId,
    domains: (o) => o.domainId,
  };
  const pick = byFamily[family] ?? ((o: Owner) => o.link.id);
  return [pick(a), pick(b)];
}

/** A valid body per route, for spoiling one field at a time (reaching the code past the schema). */
function template(route: Route): unknown {
  const link = { url: "https://example.com/fuzz", title: "t", description: "d" };
  const event = { link_id: a.link.id, visitor_id: "v", event_type: "conversion", page_url: "https://shop.example/", properties: { n: 1 } };
  const byPath: Record<string, unknown> = {
    [`POST ${P}/links`]: link,
    [`POST ${P}/links/bulk`]: [link],
    [`PATCH ${P}/links/{id}`]: { title: "t2" },
    [`POST ${P}/campaigns`]: { name: "c", description: "d" },
    [`PATCH ${P}/campaigns/{id}`]: { name: "c2" },
    [`POST ${P}/webhooks`]: { url: receiver.url, events: ["link.created"], description: "d" },
    [`PATCH ${P}/webhooks/{id}`]: { description: "d2" },
    [`POST ${P}/domains`]: { name: "fuzz.example.com" },
    [`POST ${P}/journey/events`]: { events: [event] },
    ["POST /admin/v1/accounts"]: { name: "n", tier: "free" },
    ["PATCH /admin/v1/accounts/{id}"]: { limit_overrides: { clicks_per_month: 5 } },
    ["POST /admin/v1/accounts/{id}/keys"]: { name: "n", scopes: ["links:read"] },
    ["POST /admin/v1/accounts/{id}/members"]: { email: "x@example.com", role: "viewer" },
    ["POST /{code}"]: { password: "p" },
  };
  return byPath[`${route.method} ${route.path}`] ?? {};
}

interface Case {
  route: Route;
  method: string;
  target: string;
  headers: [string, string][];
  body: BodyCase;
}

/** Built once the server is up: the routes and ids come from it. */
const caseArb = (): fc.Arbitrary<Case> =>
  fc.constantFrom(...routes).chain((route) => {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    return fc
      .record({
        method: fc.oneof(
          { weight: 9, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND") },
        ),
        params: fc.tuple(...names.map((n) => pathValue(idsFor(route, n)))),
        query: queryPairs(route.query),
        key: fc.constantFrom(a.key, a.key, a.key, a.key, b.key, "svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "garbage", ""),
        admin: fc.constantFrom(`Bearer ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}`, "Bearer wrong", ""),
        host: hostHeader(`127.0.0.1:${s.port}`),
        contentType: fc.oneof(
          { weight: 6, arbitrary: fc.constant("application/json") },
          { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        ),
        extra: fc.array(
          fc.tuple(
            fc.constantFrom(
              "x-request-id",
              "x-forwarded-for",
              "x-idempotency-key",
              "origin",
              "user-agent",
              "cookie",
              "accept",
              "if-none-match",
            ),
            headerValue,
          ),
          { maxLength: 3 },
        ),
        body: bodyCase(route.fields, template(route)),
      })
      .map((r): Case => {
        let i = 0;
        const path = route.path.replace(/\{\w+\}/g, () => r.params[i++]);
        const query = r.query.map(([k, v]) => `${k}=${v}`).join("&");
        const headers: [string, string][] = [["Host", r.host]];
        if (r.key) headers.push(["X-API-Key", r.key]);
        if (r.admin) headers.push(["Authorization", r.admin]);
        if (r.body.bytes) headers.push(["Content-Type", r.contentType]);
        headers.push(...r.extra);
        return { route, method: r.method, target: query ? `${path}?${query}` : path, headers, body: r.body };
      });
  });

const describeCase = (c: Case) =>
  `${c.method} ${c.target.slice(0, 300)} [${c.body.kind}] ${c.headers.map(([k, v]) => `${k}: ${v.slice(0, 60)}`).join(" | ")}`;

/** What a refused request must not have changed: A's resources, C's account and keys, accepted events. */
async function fingerprint() {
  const strip = (rows: any[], ...fields: string[]) =>
    rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !fields.includes(k))));
  const links = await api(a.key, "GET", "/links?per_page=250&sort_by=created_at");
  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  return {
    links: strip(links.body.data, "last_accessed_at"),
    total: links.body.meta.total,
    campaigns: (await api(a.key, "GET", "/campaigns")).body.data,
    webhooks: strip((await api(a.key, "GET", "/webhooks")).body.data, "consecutive_failures"),
    domains: (await api(a.key, "GET", "/domains")).body.data,
    account: (await s.admin("GET", `/accounts/${c.id}`)).body.data,
    keys: strip((await s.admin("GET", `/accounts/${c.id}/keys`)).body.data, "last_used_at"),
    accepted: metrics.split("\n").filter((l) => l.startsWith("events_accepted_total")),
  };
}

const LEAKS = [
  ROOT,
  "node_modules",
  "/tmp/",
  "svc-hostile-",
  /\bat .+:\d+:\d+/,
  /Bun v\d/,
  /TypeError|RangeError|SyntaxError|ReferenceError/,
];

/** Bun's HTTP parser answers a request head over its limit itself (431, empty body), before any code of ours. */
const HEAD_LIMIT = 16 * 1024;

function checkAnswer(c: Case, headBytes: number, res: RawResponse) {
  const label = describeCase(c);
  expect(res.noAnswer, label).toBe(false);
  if (headBytes > HEAD_LIMIT / 2 && res.status === 431 && res.body === "") return;
  expect(res.status, `${label}\n→ ${res.body.slice(0, 500)}`).toBeLessThan(500);
  const type = res.headers.get("content-type") ?? "";
  // Our own scripts and pages (the tracker, the widgets, the dashboard, the API docs) are code, not leaks.
  const ownAsset = res.status < 400 && /javascript|text\/html|text\/css/.test(type);
  for (const leak of ownAsset ? [] : LEAKS) {
    const found = typeof leak === "string" ? res.body.includes(leak) : leak.test(res.body);
    expect(found, `${label}\nleaks ${leak}: ${res.body.slice(0, 500)}`).toBe(false);
  }
  const requestId = res.headers.get("x-request-id");
  expect(requestId, `${label}: no X-Request-Id (not answered by us)`).toBeString();
  if (res.status < 400) return;
  if (type.includes("text/html")) {
    // Only the redirect's own pages (unknown, expired, password) are HTML: on /{code}, any one-segment path.
    expect(c.target, label).toMatch(/^\/[^/?]*(\?|$)/);
    return;
  }
  if (c.method === "HEAD") return; // no body
  expect(type, label).toContain("application/json");
  const body = JSON.parse(res.body);
  expect(body.success, label).toBe(false);
  if (typeof body.error === "string") {
    expect(body.error, label).toBe("RATE_LIMIT_EXCEEDED");
    return;
  }
  // A bulk import whose every item failed is 422 with the per-item report, not an error envelope.
  if (res.status === 422 && c.route.path.endsWith("/links/bulk")) {
    expect(body.data.failure_count, label).toBe(body.data.total_requested);
    return;
  }
  expect(body.error, `${label}\n→ ${res.status} ${res.body.slice(0, 500)}`).toBeObject();
  expect(Object.keys(ERROR_STATUS), label).toContain(body.error.code);
  expect(ERROR_STATUS[body.error.code as keyof typeof ERROR_STATUS] as number, label).toBe(res.status);
  expect(body.error.message, label).toBeString();
  expect(body.meta, label).toMatchObject({ request_id: requestId, status: res.status });
  if (body.error.code === "VALIDATION_ERROR" && body.error.details?.fields) {
    // POST /imports takes a file, not fields: its errors name `file` (the multipart part's name).
    const roots = c.route.path.endsWith("/imports") ? /^(file|body|query|header|request)\b/ : /^(body|query|path|header|request)\b/;
    for (const f of body.error.details.fields) expect(f.field, label).toMatch(roots);
  }
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE", "PROPFIND"]);

test("every route, fuzzed with hostile requests: no 500, no leak, envelope errors, nothing stored when refused, healthz answers", async () => {
  let cases = 0;
  const details = await fc.check(
    fc.asyncProperty(caseArb(), async (c) => {
      cases++;
      const watch = MUTATING.has(c.method) || c.route.path === "/{code}";
      const before = watch ? await fingerprint() : null;
      const bytes = encodeRequest({ method: c.method, target: c.target, headers: c.headers, body: c.body.bytes ?? undefined });
      const res = await sendRaw(s.port, bytes);
      checkAnswer(c, bytes.length - (c.body.bytes?.length ?? 0), res);
      if (before && res.status >= 400) expect(await fingerprint(), `refused, yet stored: ${describeCase(c)}`).toEqual(before);
      expect(await s.healthy(), `healthz after ${describeCase(c)}`).toBe(true);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  // The counterexample itself can be megabytes: report the seed, the path and our own short description.
  if (details.failed) {
    const why = (details.errorInstance as Error)?.message ?? String(details.errorInstance);
    throw new Error(`fuzz case failed (FUZZ_SEED=${details.seed}, path ${details.counterexamplePath}):\n${why.slice(0, 4000)}`);
  }
  expect(cases).toBe(RUNS);
  expect(s.unexpectedErrors()).toEqual([]);
}, 900_000);

test("another account's ids answer 404 (never 403) on every route that takes one", async () => {
  const other: Record<string, string> = {
    links: b.link.id,
    journey: b.link.id,
    campaigns: b.campaignId,
    webhooks: b.webhookId,
    domains: b.domainId,
  };
  let checked = 0;
  for (const route of routes.filter((r) => r.path.startsWith(P) && r.path.includes("{"))) {
    const family = route.path.split("/")[3];
    const id = other[family];
    if (!id) continue;
    const required: Record<string, string> = { funnel: "?steps=a,b", paths: "?start=a", breakdown: "?dimension=device" };
    const path = route.path.replace(/\{\w+\}/g, id).slice(P.length) + (required[route.path.split("/").pop() ?? ""] ?? "");
    const res = await api(a.key, route.method, path, route.method === "GET" ? undefined : template(route));
    expect(res.status, `${route.method} ${route.path}`).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    checked++;
  }
  expect(checked).toBeGreaterThan(15);
  expect(s.unexpectedErrors()).toEqual([]);
});
