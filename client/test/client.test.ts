// The typed client against a live server of ours (a real loopback HTTP server on real stores), for
// every endpoint family: typed data and errors, pagination, and retries that honour Retry-After.
// The types themselves are checked by `npm run typecheck:client` (tsc over this file).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, listen, type TestApp } from "../../test/helpers/app";
import { startReceiver, type Receiver } from "../../test/webhooks/receiver";
import { createSvcClient, errorCode, paginate, retryAfterMs, SvcApiError, type Link, type SvcClient } from "../src/index";

let t: TestApp;
let server: ReturnType<typeof listen>;
let client: SvcClient;
let receiver: Receiver;
let key: string;
const TXT: Record<string, string[][]> = {};

beforeAll(async () => {
  t = await createTestApp({}, { WEBHOOK_ALLOW_INSECURE: "true" }, { resolveTxt: async (name) => TXT[name] ?? [] });
  ({ key } = await t.createAccount({ tier: "scale" }));
  server = listen(t);
  client = createSvcClient({ baseUrl: server.url, apiKey: key });
  // Starting a real app is slow on a loaded machine; nothing here is timed.
}, 240_000);
afterAll(async () => {
  receiver?.stop();
  await server?.stop();
  await t?.close();
});

const newLink = async (path: string) => {
  const { data, error } = await client.POST("/links", { body: { url: `https://example.com/${path}`, title: path, description: "d" } });
  if (error) throw new Error(JSON.stringify(error));
  return data.data;
};

describe("links", () => {
  test("create, get, update, delete and restore with typed data", async () => {
    const link: Link = await newLink("a");
    expect(link.short_code).toMatch(/^[A-Za-z0-9]{7}$/);
    const got = await client.GET("/links/{id}", { params: { path: { id: link.id } } });
    expect(got.data?.data.original_url).toBe("https://example.com/a");
    expect(got.response.headers.get("x-ratelimit-limit")).toBe("250000");
    const updated = await client.PATCH("/links/{id}", { params: { path: { id: link.id } }, body: { title: "A", tags: ["x"] } });
    expect(updated.data?.data).toMatchObject({ title: "A", tags: ["x"] });
    const deleted = await client.DELETE("/links/{id}", { params: { path: { id: link.id } } });
    expect(deleted.data?.data.message).toContain(link.short_code);
    const restored = await client.POST("/links/{id}/restore", { params: { path: { id: link.id } } });
    expect(restored.data?.data.id).toBe(link.id);
  });

  test("errors are typed: 404 NOT_FOUND, 400 naming the field", async () => {
    const missing = await client.GET("/links/{id}", { params: { path: { id: crypto.randomUUID() } } });
    expect(missing.data).toBeUndefined();
    expect(missing.response.status).toBe(404);
    expect(missing.error && errorCode(missing.error)).toBe("NOT_FOUND");
    if (missing.error && typeof missing.error.error !== "string") expect(missing.error.meta.status).toBe(404);
    const bad = await client.POST("/links", { body: { url: "ftp://example.com/x" } });
    expect(bad.response.status).toBe(400);
    if (!bad.error || typeof bad.error.error === "string") throw new Error("expected the object form");
    expect(bad.error.error.code).toBe("VALIDATION_ERROR");
  });

  test("paginate() walks every page of the list", async () => {
    const made = [await newLink("p1"), await newLink("p2"), await newLink("p3"), await newLink("p4"), await newLink("p5")];
    const seen: string[] = [];
    for await (const link of paginate(client, "/links", {
      query: { per_page: 2, search: "example.com/p", sort_by: "created_at", sort_order: "asc" },
    }))
      seen.push(link.id);
    expect(seen).toEqual(made.map((l) => l.id));
  });

  test("bulk answers 201, 207 (partial) as data and 422 as a typed error", async () => {
    const partial = await client.POST("/links/bulk", {
      body: [{ url: "https://example.com/b1", title: "b", description: "b" }, { url: "nope" }],
    });
    expect(partial.response.status).toBe(207);
    expect(partial.data).toMatchObject({ success: false, data: { success_count: 1, failure_count: 1 } });
    const none = await client.POST("/links/bulk", { body: [{ url: "nope" }] });
    expect(none.response.status).toBe(422);
    expect(none.error).toMatchObject({ success: false, data: { success_count: 0, failure_count: 1 } });
  });

  test("link stats", async () => {
    const link = await newLink("stats");
    const { data } = await client.GET("/links/{id}/stats", { params: { path: { id: link.id } } });
    expect(data?.data).toMatchObject({ short_code: link.short_code, total_clicks: 0 });
  });
});

describe("analytics, journey and conversions", () => {
  test("ingest, then read every report through the client", async () => {
    const link = await newLink("journey");
    const at = new Date(Date.now() - 60_000).toISOString();
    const events = [
      {
        link_id: link.id,
        visitor_id: "v1",
        session_id: "s1",
        event_type: "page_view" as const,
        page_url: "https://example.com/",
        timestamp: at,
      },
      {
        link_id: link.id,
        visitor_id: "v1",
        session_id: "s1",
        event_type: "conversion" as const,
        event_name: "buy",
        page_url: "https://example.com/buy",
        revenue_cents: 1200,
        currency: "EUR",
        timestamp: at,
      },
    ];
    const ingest = await client.POST("/journey/events", { body: { events }, params: { header: { "X-Idempotency-Key": "client-test-1" } } });
    expect(ingest.response.status).toBe(202);
    expect(ingest.data?.data).toEqual({ message: "2 event(s) queued", count: 2 });
    await t.flush();

    const summary = await client.GET("/journey/links/{link_id}/summary", {
      params: { path: { link_id: link.id }, query: { period: "24h" } },
    });
    expect(summary.data?.data).toMatchObject({ total_visitors: 1, total_events: 2 });
    const sessions = [];
    for await (const s of paginate(client, "/journey/links/{link_id}/sessions", { path: { link_id: link.id }, query: { period: "24h" } }))
      sessions.push(s);
    expect(sessions.map((s) => [s.session_id, s.converted])).toEqual([["s1", true]]);
    const kinds = [];
    for await (const e of paginate(client, "/journey/links/{link_id}/events", {
      path: { link_id: link.id },
      query: { period: "24h", limit: 1 },
    }))
      kinds.push(e.event_type);
    expect(kinds.sort()).toEqual(["conversion", "page_view"]);
    const funnel = await client.GET("/journey/links/{link_id}/funnel", {
      params: { path: { link_id: link.id }, query: { steps: "page_view,buy" } },
    });
    expect(funnel.data?.data.steps.map((s) => s.visitors)).toEqual([1, 1]);
    const paths = await client.GET("/journey/links/{link_id}/paths", {
      params: { path: { link_id: link.id }, query: { start: "page_view", steps: 3, compare: "previous" } },
    });
    expect(paths.data?.data.steps.map((s) => s.nodes.map((n) => n.name))).toEqual([["https://example.com/"], ["buy"]]);
    expect(paths.data?.data.comparison?.change.visitors).toEqual({ current: 1, previous: 0, change_percent: null });
    // compare on the other report families: typed `comparison` with the compared window's report.
    const summaryBefore = await client.GET("/journey/links/{link_id}/summary", {
      params: { path: { link_id: link.id }, query: { period: "24h", compare: "previous" } },
    });
    expect(summaryBefore.data?.data.comparison?.data.total_visitors).toBe(0);
    expect(summaryBefore.data?.data.comparison?.change.total_visitors).toEqual({ current: 1, previous: 0, change_percent: null });
    const funnelBefore = await client.GET("/journey/links/{link_id}/funnel", {
      params: { path: { link_id: link.id }, query: { steps: "page_view,buy", compare: "year" } },
    });
    expect(funnelBefore.data?.data.comparison?.data.steps.map((s) => s.visitors)).toEqual([0, 0]);
    const convBefore = await client.GET("/conversions/summary", { params: { query: { link_id: link.id, compare: "previous" } } });
    expect(convBefore.data?.data.comparison?.change.total_conversions).toEqual({ current: 1, previous: 0, change_percent: null });
    const clicksBefore = await client.GET("/analytics/timeseries", { params: { query: { days: 7, compare: "previous" } } });
    expect(clicksBefore.data?.data.comparison?.data).toHaveLength(7);
    const retention = await client.GET("/journey/links/{link_id}/retention", {
      params: { path: { link_id: link.id }, query: { weeks: 2 } },
    });
    expect(retention.data?.data.cohorts.map((c) => c.visitors)).toEqual([0, 1]);
    // The journey's realtime: the buy event above is recent; the clicks' realtime answers for the account.
    const realtime = await client.GET("/journey/links/{link_id}/realtime", { params: { path: { link_id: link.id } } });
    expect(realtime.data?.data).toMatchObject({ source: "journey_events", visitors: 1 });
    const clicksNow = await client.GET("/analytics/realtime", { params: { query: { link_id: link.id } } });
    expect(clicksNow.data?.data.minutes).toHaveLength(30);

    const conv = await client.GET("/conversions/summary", { params: { query: { link_id: link.id, period: "24h" } } });
    expect(conv.data?.data).toMatchObject({ total_conversions: 1, total_revenue: 12 });
    const series = await client.GET("/conversions/timeseries", {
      params: { query: { link_id: link.id, period: "24h", interval: "hour" } },
    });
    // Without `compare` the answer is the bare list; with it, `{ analytics, comparison }`.
    const points = series.data!.data;
    if (!Array.isArray(points)) throw new Error("a timeseries without compare is a list");
    expect(points.reduce((n, p) => n + p.conversions, 0)).toBe(1);
    const breakdown = await client.GET("/conversions/breakdown", {
      params: { query: { dimension: "name", link_id: link.id, period: "24h" } },
    });
    const rows = breakdown.data!.data;
    if (!Array.isArray(rows)) throw new Error("a breakdown without compare is a list");
    expect(rows[0]).toMatchObject({ label: "buy", conversions: 1 });
    const ttc = await client.GET("/conversions/time-to-convert", { params: { query: { link_id: link.id } } });
    expect(ttc.data?.data.buckets).toHaveLength(4);
    const attribution = await client.GET("/conversions/attribution", {
      params: { query: { link_id: link.id, period: "24h", model: "last", window_days: 7, group_by: "link" } },
    });
    expect(attribution.data?.data).toMatchObject({ model: "last", window_days: 7, total_conversions: 1, total_revenue: 12 });
    expect(attribution.data?.data.rows.map((r) => r.id)).toEqual([link.id]);

    for (const path of [
      "/analytics/summary",
      "/analytics/timeseries",
      "/analytics/geo",
      "/analytics/devices",
      "/analytics/referrers",
      "/analytics/hourly",
    ] as const) {
      const r = await client.GET(path, { params: { query: { days: 7 } } });
      expect(r.response.status).toBe(200);
      expect(r.data?.data.usage.tier).toBe("scale");
    }
    const summaryReport = await client.GET("/analytics/summary", {});
    expect(summaryReport.data?.data.analytics.total_links_count).toBeGreaterThan(0);
  });
});

describe("CSV reports and raw exports", () => {
  test("a report as CSV text and an export as a stream, with typed parameters", async () => {
    const link = await newLink("export");
    const { response, data } = await client.GET("/analytics/geo", { params: { query: { days: 7, format: "csv" } }, parseAs: "text" });
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(data?.split("\r\n")[0]).toBe("country_code,clicks,unique_visitors");
    const today = new Date().toISOString().slice(0, 10);
    const exported = await client.GET("/exports/clicks", {
      params: { query: { start_date: today, end_date: today, link_id: link.id, format: "ndjson" } },
      parseAs: "stream",
    });
    expect(exported.response.status).toBe(200);
    expect(exported.response.headers.get("x-export-range")).toBe(`${today}/${today}`);
    expect(await new Response(exported.data as ReadableStream).text()).toBe("");
    const other = await client.GET("/exports/journey-events", { params: { query: { link_id: crypto.randomUUID() } }, parseAs: "stream" });
    expect(other.response.status).toBe(404);
    expect(other.error && errorCode(other.error)).toBe("NOT_FOUND");
  });
});

describe("webhooks, domains, campaigns and shares", () => {
  test("webhook endpoints: create (secret once), list, get, update, test, deliveries, delete", async () => {
    receiver = startReceiver();
    const created = await client.POST("/webhooks", { body: { url: receiver.url, events: ["link.created"] } });
    const hook = created.data!.data;
    expect(hook.secret).toStartWith("whsec_");
    const id = { params: { path: { id: hook.id } } };
    expect((await client.GET("/webhooks")).data?.data.map((h) => h.id)).toContain(hook.id);
    expect((await client.GET("/webhooks/{id}", id)).data?.data).not.toHaveProperty("secret");
    const patched = await client.PATCH("/webhooks/{id}", { ...id, body: { description: "crm" } });
    expect(patched.data?.data.description).toBe("crm");
    const sent = await client.POST("/webhooks/{id}/test", id);
    expect(sent.data?.data).toMatchObject({ event_type: "test", status: "delivered", http_status: 200 });
    expect((await client.GET("/webhooks/{id}/deliveries", id)).data?.data).toHaveLength(1);
    expect((await client.DELETE("/webhooks/{id}", id)).data?.data.message).toBe("Webhook endpoint deleted");
  }, 60_000);

  test("domains: add, get, verify through TXT, list, delete", async () => {
    const created = await client.POST("/domains", { body: { name: "go.client-test.example" } });
    const domain = created.data!.data;
    const id = { params: { path: { id: domain.id } } };
    expect((await client.POST("/domains/{id}/verify", id)).data?.data.verified).toBe(false);
    TXT[domain.verification.name] = [[domain.verification.value]];
    expect((await client.POST("/domains/{id}/verify", id)).data?.data.verified).toBe(true);
    expect((await client.GET("/domains/{id}", id)).data?.data.name).toBe("go.client-test.example");
    expect((await client.GET("/domains")).data?.data).toHaveLength(1);
    expect((await client.DELETE("/domains/{id}", id)).response.status).toBe(200);
  });

  test("campaigns: create, list, get, update, delete", async () => {
    const campaign = (await client.POST("/campaigns", { body: { name: "Spring" } })).data!.data;
    const id = { params: { path: { id: campaign.id } } };
    expect((await client.GET("/campaigns")).data?.data.map((c) => c.name)).toContain("Spring");
    expect((await client.PATCH("/campaigns/{id}", { ...id, body: { description: "2026" } })).data?.data.description).toBe("2026");
    expect((await client.GET("/campaigns/{id}", id)).data?.data.name).toBe("Spring");
    expect((await client.DELETE("/campaigns/{id}", id)).response.status).toBe(200);
  });

  test("shared dashboards: create (token once), list, update, rotate, delete; the page answers the token", async () => {
    const link = await newLink("shared");
    const created = (
      await client.POST("/shares", { body: { title: "For Acme", scope: "link", link_id: link.id, reports: ["summary", "link_stats"] } })
    ).data!.data;
    expect(created.token).toMatch(/^shr_/);
    expect((await fetch(created.url.replace(t.config.baseUrl, server.url))).status).toBe(200);
    const id = { params: { path: { id: created.share.id } } };
    expect((await client.GET("/shares")).data?.data.map((s) => s.id)).toContain(created.share.id);
    expect((await client.PATCH("/shares/{id}", { ...id, body: { enabled: false } })).data?.data.enabled).toBe(false);
    const rotated = (await client.POST("/shares/{id}/rotate", { ...id, body: { grace_minutes: 0 } })).data!.data;
    expect(rotated.token).not.toBe(created.token);
    expect((await client.GET("/shares/{id}", id)).data?.data.token_prefix).toBe(rotated.share.token_prefix);
    const bad = await client.POST("/shares", { body: { title: "x", scope: "account", reports: ["link_stats"] } });
    expect(bad.response.status).toBe(400);
    expect(errorCode(bad.error!)).toBe("VALIDATION_ERROR");
    expect((await client.DELETE("/shares/{id}", id)).response.status).toBe(200);
  });

  test("report subscriptions and alerts: create, list, get, update, delete", async () => {
    const sub = (await client.POST("/report-subscriptions", { body: { email: "client@example.com", monthly: true } })).data!.data;
    expect(sub).toMatchObject({ email: "client@example.com", weekly: true, monthly: true });
    const sid = { params: { path: { id: sub.id } } };
    expect((await client.PATCH("/report-subscriptions/{id}", { ...sid, body: { weekly: false } })).data?.data.weekly).toBe(false);
    expect((await client.GET("/report-subscriptions")).data?.data.map((s) => s.id)).toContain(sub.id);
    expect((await client.DELETE("/report-subscriptions/{id}", sid)).response.status).toBe(200);
    const link = await newLink("alerted");
    const alert = (
      await client.POST("/alerts", { body: { kind: "conversion_drop", threshold: 30, link_id: link.id, recipients: ["ops@example.com"] } })
    ).data!.data;
    expect(alert).toMatchObject({ kind: "conversion_drop", threshold: 30, link_id: link.id, last_triggered_at: null });
    const aid = { params: { path: { id: alert.id } } };
    expect((await client.GET("/alerts/{id}", aid)).data?.data.recipients).toEqual(["ops@example.com"]);
    const bad = await client.POST("/alerts", { body: { kind: "conversion_drop", threshold: 30 } });
    expect(bad.response.status).toBe(400);
    expect(errorCode(bad.error!)).toBe("VALIDATION_ERROR");
    expect((await client.DELETE("/alerts/{id}", aid)).response.status).toBe(200);
  });
});

describe("retries", () => {
  test("429 and 503 are sent again after Retry-After, with the same body and idempotency key", async () => {
    const link = await newLink("retry");
    const seen: { at: number; body: string; key: string | null }[] = [];
    // A proxy in front of our server that refuses the first two attempts, as an overloaded ingest would.
    const proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const body = await req.text();
        const url = new URL(req.url);
        const forward = () =>
          fetch(`${server.url}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body: body || undefined });
        // The test's fetch guard reads the document through the proxy too: that is not an attempt.
        if (url.pathname !== "/public-api/v1/journey/events") return forward();
        seen.push({ at: Date.now(), body, key: req.headers.get("x-idempotency-key") });
        // Refusals in the documented form: 503 (ingest over capacity) and 429 (monthly limit), nothing stored.
        const refuse = (status: number, code: string, retryAfter: string, details?: object) =>
          Response.json(
            {
              success: false,
              error: { code, message: "refused by the test proxy", details },
              meta: { request_id: `proxy-${seen.length}`, timestamp: new Date().toISOString(), status },
            },
            { status, headers: { "retry-after": retryAfter, "x-request-id": `proxy-${seen.length}` } },
          );
        if (seen.length === 1) return refuse(503, "SERVICE_UNAVAILABLE", "1");
        if (seen.length === 2)
          return refuse(429, "JOURNEY_LIMIT_EXCEEDED", "1", {
            events_this_month: 15,
            limit: 10,
            status: "blocked",
          });
        return forward();
      },
    });
    try {
      const proxied = createSvcClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, apiKey: key });
      const event = { link_id: link.id, visitor_id: "v9", event_type: "page_view" as const, page_url: "https://example.com/r" };
      const res = await proxied.POST("/journey/events", {
        body: { events: [event] },
        params: { header: { "X-Idempotency-Key": "retry-1" } },
      });
      expect(res.response.status).toBe(202);
      expect(res.data?.data.count).toBe(1);
      expect(seen).toHaveLength(3);
      expect(new Set(seen.map((s) => s.body)).size).toBe(1);
      expect(seen.map((s) => s.key)).toEqual(["retry-1", "retry-1", "retry-1"]);
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
      expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(950);
    } finally {
      proxy.stop(true);
    }
  }, 30_000);

  test("a Retry-After past maxDelayMs is answered, not waited for: the hourly rate limit of our server", async () => {
    const free = await t.createAccount({ tier: "free" });
    const limited = createSvcClient({ baseUrl: server.url, apiKey: free.key });
    for (let i = 0; i < 50; i++) expect((await limited.GET("/campaigns")).response.status).toBe(200);
    const started = Date.now();
    const over = await limited.GET("/campaigns");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(over.response.status).toBe(429);
    expect(Number(over.response.headers.get("retry-after"))).toBeGreaterThan(60);
    expect(over.error && errorCode(over.error)).toBe("RATE_LIMIT_EXCEEDED");
    expect(over.error).toMatchObject({ success: false, error: "RATE_LIMIT_EXCEEDED" });
    const pages = paginate(limited, "/links", { query: {} });
    await expect(pages.next()).rejects.toBeInstanceOf(SvcApiError);
  }, 60_000);

  test("Retry-After in seconds or as an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs("soon")).toBeNull();
  });
});
