// Shared dashboards as an owner and a stranger see them: the management API, the page, the password
// session, the data endpoints behind the page, and what a token can never reach.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { createLink, visit, UA } from "../analytics/helpers";
import { cookiePair, createShare, P, view } from "./helpers";

let t: TestApp;
let key: string;
let accountId: string;
let link: { id: string; short_code: string };
let other: { id: string; short_code: string };

beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" });
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
  link = await createLink(t, key, "https://example.com/shared");
  other = await createLink(t, key, "https://example.com/private");
  await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { title: '<b>Spring</b> & "sale"' } });
  for (const ip of ["8.8.8.8", "81.2.69.142", "133.242.0.1"]) await visit(t, link.short_code, { ip, ua: UA.windowsChrome });
  await visit(t, other.short_code, { ip: "8.8.4.4", ua: UA.macFirefox });
  await t.flush();
}, 120_000);
afterAll(() => t.close());

const html = async (res: Response) => ({ status: res.status, headers: res.headers, text: await res.text() });

describe("the management API", () => {
  test("create answers the token once; lists, the database and later answers never hold it", async () => {
    const s = await createShare(t, key, { title: "Client A", scope: "link", link_id: link.id, reports: ["summary", "link_stats"] });
    expect(s.token).toMatch(/^shr_[A-Za-z0-9_-]{43}$/);
    expect(s.url).toBe(`${t.config.baseUrl}/share/${s.token}`);
    expect(s.share).toMatchObject({
      scope: "link",
      link_id: link.id,
      campaign_id: null,
      enabled: true,
      has_password: false,
      expires_at: null,
    });
    expect(s.token.startsWith(s.share.token_prefix)).toBe(true);
    const list = await t.call(`${P}/shares`, { key });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(s.token);
    const rows = await t.runtime.deps.pg.query<Record<string, unknown>>(sql`SELECT * FROM shares WHERE id = ${s.share.id}`);
    expect(JSON.stringify(rows)).not.toContain(s.token);
    expect(rows[0].token_hash).toBe(new Bun.CryptoHasher("sha256").update(s.token).digest("hex"));
  });

  test("bad input is a 400 naming the field, and creates nothing", async () => {
    const before = (await t.call(`${P}/shares`, { key })).body.data.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ title: "x", scope: "account", reports: ["link_stats"] }, "body.reports"],
      [{ title: "x", scope: "link", reports: ["summary"] }, "body.link_id"],
      [{ title: "x", scope: "account", link_id: link.id, reports: ["summary"] }, "body.link_id"],
      [{ title: "x", scope: "account", reports: ["summary"], allowed_origins: ["https://a.example/path"] }, "body.allowed_origins[0]"],
      [{ title: "x", scope: "account", reports: ["summary"], allowed_origins: ["'none'"] }, "body.allowed_origins[0]"],
      [
        { title: "x", scope: "account", reports: ["summary"], allowed_origins: ["https://ok.example", "https://a.example;script-src *"] },
        "body.allowed_origins[1]",
      ],
      [
        { title: "x", scope: "account", reports: ["summary"], allowed_origins: ["https://a.example;script-src"] },
        "body.allowed_origins[0]",
      ],
      [{ title: "x", scope: "account", reports: ["summary"], expires_at: "2001-01-01T00:00:00Z" }, "body.expires_at"],
      [{ title: "x", scope: "account", reports: ["summary"], password: "short" }, "password"],
    ];
    for (const [body, field] of cases) {
      const res = await t.call(`${P}/shares`, { method: "POST", key, json: body });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(field);
    }
    expect((await t.call(`${P}/shares`, { key })).body.data.length).toBe(before);
  });

  test("a share shows no more than its creator may read; another account's share, link or campaign is 404", async () => {
    const linksOnly = await t.admin("POST", `/accounts/${accountId}/keys`, { name: "links", scopes: ["links:read", "links:write"] });
    const res = await t.call(`${P}/shares`, {
      method: "POST",
      key: linksOnly.body.data.key,
      json: { title: "x", scope: "account", reports: ["summary"] },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.details.required).toBe("analytics:read");
    const noConv = await t.admin("POST", `/accounts/${accountId}/keys`, { name: "nc", scopes: ["links:write", "analytics:read"] });
    const conv = await t.call(`${P}/shares`, {
      method: "POST",
      key: noConv.body.data.key,
      json: { title: "x", scope: "account", reports: ["conversions"] },
    });
    expect(conv.status).toBe(403);

    const stranger = await t.createAccount({ tier: "scale" });
    const mine = await createShare(t, key, { title: "mine", scope: "account", reports: ["summary"] });
    for (const [method, path] of [
      ["GET", `/shares/${mine.share.id}`],
      ["PATCH", `/shares/${mine.share.id}`],
      ["POST", `/shares/${mine.share.id}/rotate`],
      ["DELETE", `/shares/${mine.share.id}`],
    ]) {
      const r = await t.call(`${P}${path}`, { method, key: stranger.key, json: method === "PATCH" ? { title: "y" } : undefined });
      expect(r.status).toBe(404);
    }
    const theirs = await t.call(`${P}/shares`, {
      method: "POST",
      key: stranger.key,
      json: { title: "x", scope: "link", link_id: link.id, reports: ["summary"] },
    });
    expect(theirs.status).toBe(404);
    expect((await t.call(`${P}/shares`, { key: stranger.key })).body.data).toEqual([]);
  });
});

describe("the page and its data", () => {
  test("headline numbers without JavaScript, widgets on the share's own data endpoints, noindex, no framing by default", async () => {
    const s = await createShare(t, key, {
      title: "Q2 <script>alert(1)</script>",
      scope: "link",
      link_id: link.id,
      reports: ["summary", "link_stats", "geo"],
    });
    const page = await html(await view(t, `/share/${s.token}`));
    expect(page.status).toBe(200);
    expect(page.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect(page.text).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    // User-written text is escaped: the share's title and the link's title.
    expect(page.text).not.toContain("<script>alert(1)</script>");
    expect(page.text).toContain("Q2 &#60;script&#62;alert(1)&#60;/script&#62;");
    expect(page.text).not.toContain("<b>Spring</b>");
    expect(page.text).toContain("&#60;b&#62;Spring&#60;/b&#62; &#38; &#34;sale&#34;");
    // The headline numbers are the API's.
    const stats = (await t.call(`${P}/links/${link.id}/stats`, { key })).body.data;
    const summary = (await t.call(`${P}/analytics/summary?days=30&link_id=${link.id}`, { key })).body.data.analytics;
    expect(stats.total_clicks).toBe(3);
    expect(page.text).toContain(`<dt>All clicks</dt><dd>${stats.total_clicks}</dd>`);
    expect(page.text).toContain(`<dt>Clicks</dt><dd>${summary.total_clicks}</dd>`);
    expect(page.text).toContain(`api-base="/share/${s.token}/data"`);
    // Nothing that names a link (this one or another), nor a key.
    for (const secret of [link.id, other.id, key, accountId]) expect(page.text).not.toContain(secret);

    const data = await view(t, `/share/${s.token}/data/links/shared/stats`);
    expect(data.status).toBe(200);
    expect(data.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    const body = (await data.json()) as any;
    expect(body.data).toEqual(stats);
    const geo = (await (await view(t, `/share/${s.token}/data/analytics/geo?days=30`)).json()) as any;
    const apiGeo = (await t.call(`${P}/analytics/geo?days=30&link_id=${link.id}`, { key })).body.data;
    expect(geo.data.analytics).toEqual(apiGeo.analytics);
    // The account's own figures (tier, month's clicks) are not the viewer's business.
    expect(Object.keys(geo.data.usage)).toEqual(["limit_exceeded"]);
    const sum = (await (await view(t, `/share/${s.token}/data/analytics/summary`)).json()) as any;
    expect(sum.data.analytics.clicks_this_month).toBeUndefined();
    for (const secret of [link.id, other.id, accountId]) expect(JSON.stringify([body, geo, sum])).not.toContain(secret);
  });

  test("only the chosen reports, only the share's scope: no filter widens it", async () => {
    const s = await createShare(t, key, { title: "narrow", scope: "link", link_id: link.id, reports: ["summary"] });
    expect((await view(t, `/share/${s.token}/data/analytics/geo`)).status).toBe(404);
    expect((await view(t, `/share/${s.token}/data/links/shared/stats`)).status).toBe(404);
    expect((await view(t, `/share/${s.token}/data/conversions/summary`)).status).toBe(404);
    for (const q of [
      `link_id=${other.id}`,
      "campaign_id=00000000-0000-4000-8000-000000000000",
      "tag=x",
      "group_by=variant",
      "start_date=2020-01-01",
    ]) {
      const res = await view(t, `/share/${s.token}/data/analytics/summary?${q}`);
      expect(res.status).toBe(400);
    }
    const outOfRange = (await (await view(t, `/share/${s.token}/data/analytics/summary?days=0`)).json()) as any;
    expect(outOfRange.error.code).toBe("VALIDATION_ERROR");
    expect(outOfRange.error.message).toContain("days");
    const sum = (await (await view(t, `/share/${s.token}/data/analytics/summary?days=30`)).json()) as any;
    expect(sum.data.analytics.total_clicks).toBe(3);
    // No write: the share's paths take GET only (and POST for the password on the page).
    for (const method of ["POST", "PATCH", "DELETE"])
      expect((await view(t, `/share/${s.token}/data/analytics/summary`, { method })).status).toBe(404);
  });

  test("a campaign share counts the campaign's links; conversions follow the account or the link", async () => {
    const campaign = (await t.call(`${P}/campaigns`, { method: "POST", key, json: { name: "Spring <em>push</em>" } })).body.data;
    await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { campaign_id: campaign.id } });
    const s = await createShare(t, key, {
      title: "campaign",
      scope: "campaign",
      campaign_id: campaign.id,
      reports: ["summary", "referrers"],
    });
    const page = await html(await view(t, `/share/${s.token}`));
    expect(page.text).toContain("Campaign: Spring &#60;em&#62;push&#60;/em&#62;");
    expect(page.text).not.toContain(campaign.id);
    const api = (await t.call(`${P}/analytics/summary?days=30&campaign_id=${campaign.id}`, { key })).body.data.analytics;
    const shared = ((await (await view(t, `/share/${s.token}/data/analytics/summary?days=30`)).json()) as any).data.analytics;
    expect(shared.total_clicks).toBe(api.total_clicks);
    expect(shared.total_clicks).toBe(3);
    const refs = ((await (await view(t, `/share/${s.token}/data/analytics/referrers`)).json()) as any).data.analytics;
    expect(refs).toEqual((await t.call(`${P}/analytics/referrers?campaign_id=${campaign.id}`, { key })).body.data.analytics);
    const bad = await t.call(`${P}/shares`, {
      method: "POST",
      key,
      json: { title: "x", scope: "campaign", campaign_id: campaign.id, reports: ["conversions"] },
    });
    expect(bad.status).toBe(400);

    const account = await createShare(t, key, { title: "acc", scope: "account", reports: ["conversions"] });
    const linkConv = await createShare(t, key, { title: "lc", scope: "link", link_id: link.id, reports: ["conversions"] });
    for (const part of ["summary", "timeseries", "time-to-convert"]) {
      const q = part === "timeseries" ? "period=7d&interval=day" : "period=7d";
      const accountAnswer = ((await (await view(t, `/share/${account.token}/data/conversions/${part}?${q}`)).json()) as any).data;
      expect(accountAnswer).toEqual((await t.call(`${P}/conversions/${part}?${q}`, { key })).body.data);
      const linkAnswer = ((await (await view(t, `/share/${linkConv.token}/data/conversions/${part}?${q}`)).json()) as any).data;
      expect(linkAnswer).toEqual((await t.call(`${P}/conversions/${part}?${q}&link_id=${link.id}`, { key })).body.data);
    }
    expect((await view(t, `/share/${account.token}/data/conversions/breakdown`)).status).toBe(404);
    expect((await view(t, `/share/${account.token}/data/conversions/summary?link_id=${other.id}`)).status).toBe(400);
  });

  test("a link's funnel over the share's own steps", async () => {
    const events = ["v1", "v2", "v3"].flatMap((v, i) => [
      { link_id: link.id, visitor_id: v, session_id: `s-${v}`, event_type: "page_view", page_url: "https://example.com/shared" },
      ...(i < 2
        ? [
            {
              link_id: link.id,
              visitor_id: v,
              session_id: `s-${v}`,
              event_type: "custom",
              event_name: "signup",
              page_url: "https://example.com/signup",
            },
          ]
        : []),
    ]);
    const ingest = await t.call(`${P}/journey/events`, { method: "POST", key, json: { events } });
    expect(ingest.body.error ?? null).toBeNull();
    await t.flush();
    const bad = await t.call(`${P}/shares`, {
      method: "POST",
      key,
      json: { title: "f", scope: "link", link_id: link.id, reports: ["funnel"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("body.funnel_steps");
    const onAccount = await t.call(`${P}/shares`, {
      method: "POST",
      key,
      json: { title: "f", scope: "account", reports: ["funnel"], funnel_steps: ["a"] },
    });
    expect(onAccount.status).toBe(400);
    const s = await createShare(t, key, {
      title: "f",
      scope: "link",
      link_id: link.id,
      reports: ["funnel"],
      funnel_steps: ["page_view", "signup"],
    });
    const api = (await t.call(`${P}/journey/links/${link.id}/funnel?steps=page_view,signup&period=30d`, { key })).body.data;
    expect(api.steps.map((x: any) => x.visitors)).toEqual([3, 2]);
    const shared = (await (
      await view(t, `/share/${s.token}/data/journey/links/shared/funnel?steps=page_view,signup&period=30d`)
    ).json()) as any;
    expect(shared.data).toEqual(api);
    expect((await view(t, `/share/${s.token}/data/journey/links/shared/funnel?steps=page_view,purchase`)).status).toBe(400);
    const page = await html(await view(t, `/share/${s.token}`));
    expect(page.text).toContain('steps="page_view,signup"');
    expect(page.text).toContain("<dt>signup</dt><dd>2</dd>");
  });

  test("the page and its data share one hourly budget per share: 429 with Retry-After once it is spent", async () => {
    // A Free account: its tier's 50 requests an hour are raised to the shares' floor of 3,600.
    const free = await t.createAccount({ tier: "free" });
    const s = await createShare(t, free.key, { title: "busy", scope: "account", reports: ["summary"] });
    expect((await view(t, `/share/${s.token}`)).status).toBe(200);
    // Spend the rest of the hour's budget in the same window the server counts in.
    const now = Date.now();
    for (let i = 1; i < 3_600; i++) await t.runtime.deps.kv.hitWindow(`rl:share:${s.share.id}`, 3_600, now, 60_000, 61);
    const page = await view(t, `/share/${s.token}`);
    expect(page.status).toBe(429);
    expect(Number(page.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await page.text()).toContain("Too many requests");
    const data = await view(t, `/share/${s.token}/data/analytics/summary`);
    expect(data.status).toBe(429);
    expect(Number(data.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another share has its own budget.
    const other = await createShare(t, free.key, { title: "calm", scope: "account", reports: ["summary"] });
    expect((await view(t, `/share/${other.token}/data/analytics/summary`)).status).toBe(200);
  });

  test("frame-ancestors lists exactly the owner's origins", async () => {
    const s = await createShare(t, key, {
      title: "embed",
      scope: "account",
      reports: ["summary"],
      allowed_origins: ["https://client.example", "http://localhost:8080", "https://client.example/", "https://*.Agency.example"],
    });
    expect(s.share.allowed_origins).toEqual(["https://client.example", "http://localhost:8080", "https://*.agency.example"]);
    const res = await view(t, `/share/${s.token}`);
    const csp = res.headers.get("content-security-policy")!;
    expect(
      csp
        .split(";")
        .map((d) => d.trim())
        .find((d) => d.startsWith("frame-ancestors")),
    ).toBe("frame-ancestors https://client.example http://localhost:8080 https://*.agency.example");
    expect(res.headers.get("x-frame-options")).toBeNull();
  });
});

describe("the newer reports: paths, retention, realtime, attribution, compared as the owner chose", () => {
  // The link's journey events are the funnel test's: v1, v2 and v3 viewed the page, v1 and v2 signed up.
  const json = async (path: string) => {
    const res = await view(t, path);
    return { status: res.status, body: (await res.json()) as any };
  };
  /** Clicks of the last 30 minutes, summed over the minutes (beforeAll sent 3 to the link, 1 to the other). */
  const clicksOf = (r: { minutes: { events: number }[] }) => r.minutes.reduce((n, m) => n + m.events, 0);
  /** Paths and retention compare exact windows up to now: the compared window's end moves with the clock. */
  const atAnyMoment = (d: any) => ({ ...d, comparison: { ...d.comparison, from: undefined, to: undefined } });

  test("a link share: paths, retention and realtime, only when chosen, with the share's comparison only", async () => {
    for (const [scope, reports] of [
      ["account", ["paths"]],
      ["account", ["retention"]],
      ["link", ["attribution"]],
    ] as const) {
      const res = await t.call(`${P}/shares`, {
        method: "POST",
        key,
        json: { title: "x", scope, ...(scope === "link" ? { link_id: link.id } : {}), reports },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain("body.reports");
    }
    const bad = await t.call(`${P}/shares`, {
      method: "POST",
      key,
      json: { title: "x", scope: "account", reports: ["realtime"], compare: "lastweek" },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("compare");

    const s = await createShare(t, key, {
      title: "insights",
      scope: "link",
      link_id: link.id,
      reports: ["paths", "retention", "realtime"],
      compare: "previous",
    });
    expect(s.share).toMatchObject({ reports: ["paths", "retention", "realtime"], compare: "previous" });
    const page = await html(await view(t, `/share/${s.token}`));
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `<svc-paths id="w-paths" api-base="/share/${s.token}/data" link-id="shared" start="page_view" period="30d" compare="previous">`,
    );
    expect(page.text).toContain(
      `<svc-retention id="w-retention" api-base="/share/${s.token}/data" link-id="shared" weeks="8" compare="previous">`,
    );
    expect(page.text).toContain(`<svc-realtime id="w-realtime" api-base="/share/${s.token}/data" refresh="60">`);
    for (const secret of [link.id, other.id, accountId]) expect(page.text).not.toContain(secret);

    const paths = await json(`/share/${s.token}/data/journey/links/shared/paths?start=signup&period=30d&compare=previous`);
    expect(paths.status).toBe(200);
    const apiPaths = (await t.call(`${P}/journey/links/${link.id}/paths?start=signup&period=30d&compare=previous`, { key })).body.data;
    expect(atAnyMoment(paths.body.data)).toEqual(atAnyMoment(apiPaths));
    expect(paths.body.data.steps[0].visitors).toBe(2); // v1 and v2 signed up
    expect(paths.body.data.comparison.data.steps[0]?.visitors ?? 0).toBe(0);

    const retention = await json(`/share/${s.token}/data/journey/links/shared/retention?weeks=8&compare=previous`);
    expect(retention.status).toBe(200);
    const apiRetention = (await t.call(`${P}/journey/links/${link.id}/retention?weeks=8&compare=previous`, { key })).body.data;
    expect(atAnyMoment(retention.body.data)).toEqual(atAnyMoment(apiRetention));
    expect(retention.body.data.visitors).toBe(3);
    expect(retention.body.data.comparison.data.visitors).toBe(0);
    // Without compare: no comparison; another comparison than the owner's is refused, naming it.
    expect((await json(`/share/${s.token}/data/journey/links/shared/retention`)).body.data.comparison).toBeUndefined();
    const year = await json(`/share/${s.token}/data/journey/links/shared/retention?compare=year`);
    expect(year.status).toBe(400);
    expect(year.body.error.message).toContain("query.compare");
    expect((await json(`/share/${s.token}/data/journey/links/shared/paths?start=signup&steps=1`)).status).toBe(400);

    const live = await json(`/share/${s.token}/data/analytics/realtime`);
    expect(live.status).toBe(200);
    expect(live.body.data.source).toBe("clicks");
    expect(clicksOf(live.body.data)).toBe(3);
    expect((await json(`/share/${s.token}/data/analytics/realtime?link_id=${other.id}`)).status).toBe(400);

    // Only the chosen reports answer; the rest are 404 for this token.
    for (const path of [
      "analytics/summary",
      "conversions/attribution",
      "conversions/summary",
      "journey/links/shared/funnel",
      "links/shared/stats",
      "journey/links/shared/sessions",
    ])
      expect((await view(t, `/share/${s.token}/data/${path}`)).status).toBe(404);
    const narrow = await createShare(t, key, { title: "n", scope: "link", link_id: link.id, reports: ["summary"] });
    for (const path of ["journey/links/shared/paths?start=signup", "journey/links/shared/retention", "analytics/realtime"])
      expect((await view(t, `/share/${narrow.token}/data/${path}`)).status).toBe(404);
    // A share without a comparison takes none.
    const plain = await createShare(t, key, { title: "p", scope: "link", link_id: link.id, reports: ["retention"] });
    expect(plain.share.compare).toBeNull();
    expect((await json(`/share/${plain.token}/data/journey/links/shared/retention?compare=previous`)).status).toBe(400);
    const patched = await t.call(`${P}/shares/${plain.share.id}`, { method: "PATCH", key, json: { compare: "year" } });
    expect(patched.body.data.compare).toBe("year");
    const compared = await json(`/share/${plain.token}/data/journey/links/shared/retention?compare=year`);
    expect(compared.body.data.comparison.compare).toBe("year");
  });

  test("an account or campaign share: attribution and realtime of its own links; conversions compared", async () => {
    const conversion = (link_id: string, visitor_id: string, cents: number) => ({
      link_id,
      visitor_id,
      session_id: `c-${visitor_id}`,
      event_type: "conversion",
      conversion_name: "order",
      revenue_cents: cents,
      page_url: "https://example.com/thanks",
    });
    const ingest = await t.call(`${P}/journey/events`, {
      method: "POST",
      key,
      json: { events: [conversion(link.id, "v1", 1200), conversion(other.id, "w1", 800)] },
    });
    expect(ingest.body.error ?? null).toBeNull();
    await t.flush();
    const campaign = (await t.call(`${P}/campaigns`, { method: "POST", key, json: { name: "Attribution" } })).body.data;
    await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { campaign_id: campaign.id } });

    const account = await createShare(t, key, {
      title: "acc",
      scope: "account",
      reports: ["attribution", "realtime", "conversions"],
      compare: "year",
    });
    const page = await html(await view(t, `/share/${account.token}`));
    expect(page.text).toContain(`<svc-attribution id="w-attribution" api-base="/share/${account.token}/data" period="30d" controls>`);
    expect(page.text).toContain(`<svc-conversions id="w-conversions" api-base="/share/${account.token}/data" period="30d" compare="year">`);
    const q = "period=30d&model=last&window_days=7&group_by=link";
    const attr = await json(`/share/${account.token}/data/conversions/attribution?${q}`);
    expect(attr.status).toBe(200);
    expect(attr.body.data).toEqual((await t.call(`${P}/conversions/attribution?${q}`, { key })).body.data);
    expect([attr.body.data.total_conversions, attr.body.data.total_revenue]).toEqual([2, 20]);
    expect((await json(`/share/${account.token}/data/conversions/attribution?window_days=91`)).status).toBe(400);
    expect((await json(`/share/${account.token}/data/conversions/attribution?link_id=${link.id}`)).status).toBe(400);
    expect(clicksOf((await json(`/share/${account.token}/data/analytics/realtime`)).body.data)).toBe(4);
    // The conversion widget's requests, with the share's comparison: the list reports in the compared shape.
    const series = await json(`/share/${account.token}/data/conversions/timeseries?period=7d&interval=day&compare=year`);
    expect(series.body.data).toEqual((await t.call(`${P}/conversions/timeseries?period=7d&interval=day&compare=year`, { key })).body.data);
    expect(series.body.data.comparison.change.conversions).toEqual({ current: 2, previous: 0, change_percent: null });
    expect((await json(`/share/${account.token}/data/conversions/summary?compare=previous`)).status).toBe(400);
    expect((await view(t, `/share/${account.token}/data/journey/links/shared/paths?start=signup`)).status).toBe(404);

    const camp = await createShare(t, key, {
      title: "camp",
      scope: "campaign",
      campaign_id: campaign.id,
      reports: ["attribution", "realtime"],
    });
    const campAttr = await json(`/share/${camp.token}/data/conversions/attribution?period=30d`);
    expect(campAttr.body.data).toEqual((await t.call(`${P}/conversions/attribution?period=30d&link_id=${link.id}`, { key })).body.data);
    expect([campAttr.body.data.total_conversions, campAttr.body.data.total_revenue]).toEqual([1, 12]);
    expect(clicksOf((await json(`/share/${camp.token}/data/analytics/realtime`)).body.data)).toBe(3);
    for (const secret of [other.id, accountId]) expect(JSON.stringify(campAttr.body)).not.toContain(secret);
  });
});

describe("the password", () => {
  test("guards the page and every data request; the right one gives a scoped, HttpOnly, SameSite session", async () => {
    const s = await createShare(t, key, {
      title: "locked",
      scope: "link",
      link_id: link.id,
      reports: ["summary", "link_stats"],
      password: "correct horse",
    });
    const page = await html(await view(t, `/share/${s.token}`, { ip: "198.51.100.1" }));
    expect(page.text).toContain('type="password"');
    expect(page.text).not.toContain("All clicks");
    expect((await view(t, `/share/${s.token}/data/analytics/summary`)).status).toBe(401);
    expect((await view(t, `/share/${s.token}/data/links/shared/stats`)).status).toBe(401);

    const wrong = await view(t, `/share/${s.token}`, { form: { password: "wrong horse" }, ip: "198.51.100.1" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();

    const ok = await view(t, `/share/${s.token}`, { form: { password: "correct horse" }, ip: "198.51.100.1" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe(`/share/${s.token}`);
    const setCookie = ok.headers.get("set-cookie")!;
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie.toLowerCase()).toContain("samesite=lax");
    expect(setCookie).toContain(`Path=/share/${s.token}`);
    const cookie = cookiePair(setCookie);
    expect((await html(await view(t, `/share/${s.token}`, { cookie }))).text).toContain("All clicks");
    expect((await view(t, `/share/${s.token}/data/links/shared/stats`, { cookie })).status).toBe(200);

    // A session is not forged, not moved to another share, and ends with a new password.
    const [name, value] = cookie.split("=");
    const [exp, nonce] = value.split(".");
    const forged = `${name}=${Number(exp) + 1000}.${nonce}.${value.split(".")[2]}`;
    expect((await view(t, `/share/${s.token}/data/analytics/summary`, { cookie: forged })).status).toBe(401);
    expect((await view(t, `/share/${s.token}/data/analytics/summary`, { cookie: `${name}=anything` })).status).toBe(401);
    const twin = await createShare(t, key, {
      title: "twin",
      scope: "link",
      link_id: link.id,
      reports: ["summary"],
      password: "correct horse",
    });
    expect((await view(t, `/share/${twin.token}/data/analytics/summary`, { cookie })).status).toBe(401);
    await t.call(`${P}/shares/${s.share.id}`, { method: "PATCH", key, json: { password: "battery staple" } });
    expect((await view(t, `/share/${s.token}/data/analytics/summary`, { cookie })).status).toBe(401);
    // The share's cookie is no API credential.
    expect((await t.request(`${P}/links`, { headers: { cookie } })).status).toBe(401);
  });

  test("wrong passwords are rate limited (429 with Retry-After), per address", async () => {
    const s = await createShare(t, key, { title: "brute", scope: "account", reports: ["summary"], password: "correct horse" });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await view(t, `/share/${s.token}`, { form: { password: `guess ${i}` }, ip: "192.0.2.77" })).status);
    expect(statuses.slice(0, 10).every((st) => st === 401)).toBe(true);
    const limited = await view(t, `/share/${s.token}`, { form: { password: "correct horse" }, ip: "192.0.2.77" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("set-cookie")).toBeNull();
    // Another address still gets in with the right password.
    expect((await view(t, `/share/${s.token}`, { form: { password: "correct horse" }, ip: "192.0.2.78" })).status).toBe(303);
  });
});

describe("a token that shows nothing", () => {
  const expectGone = async (token: string) => {
    const page = await html(await view(t, `/share/${token}`));
    expect(page.status).toBe(404);
    expect(page.text).not.toContain("Clicks");
    expect(page.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    expect((await view(t, `/share/${token}/data/analytics/summary`)).status).toBe(404);
  };

  test("turned off, expired, deleted, or an unknown token", async () => {
    const off = await createShare(t, key, { title: "off", scope: "account", reports: ["summary"] });
    expect((await view(t, `/share/${off.token}`)).status).toBe(200);
    await t.call(`${P}/shares/${off.share.id}`, { method: "PATCH", key, json: { enabled: false } });
    await expectGone(off.token);

    const exp = await createShare(t, key, {
      title: "exp",
      scope: "account",
      reports: ["summary"],
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await view(t, `/share/${exp.token}/data/analytics/summary`)).status).toBe(200);
    // The hour passes: the stored expiry moves into the past.
    await t.runtime.deps.pg.query(sql`UPDATE shares SET expires_at = now() - interval '1 second' WHERE id = ${exp.share.id}`);
    await expectGone(exp.token);

    const del = await createShare(t, key, { title: "del", scope: "account", reports: ["summary"] });
    await t.call(`${P}/shares/${del.share.id}`, { method: "DELETE", key });
    await expectGone(del.token);

    await expectGone(`shr_${"A".repeat(43)}`);
    await expectGone("not-a-token");
    await expectGone(`shr_${"A".repeat(500)}`);
  });

  test("rotation: the previous token works through the grace, then shows nothing; grace 0 ends it at once", async () => {
    const s = await createShare(t, key, { title: "rot", scope: "account", reports: ["summary"] });
    const r = await t.call(`${P}/shares/${s.share.id}/rotate`, { method: "POST", key, json: { grace_minutes: 5 } });
    expect(r.status).toBe(200);
    expect(r.body.data.token).not.toBe(s.token);
    expect(r.body.data.share.previous_token_valid_until).not.toBeNull();
    expect((await view(t, `/share/${s.token}/data/analytics/summary`)).status).toBe(200);
    expect((await view(t, `/share/${r.body.data.token}/data/analytics/summary`)).status).toBe(200);
    // The five minutes pass.
    await t.runtime.deps.pg.query(sql`UPDATE shares SET previous_valid_until = now() - interval '1 second' WHERE id = ${s.share.id}`);
    await expectGone(s.token);
    expect((await view(t, `/share/${r.body.data.token}`)).status).toBe(200);

    const r0 = await t.call(`${P}/shares/${s.share.id}/rotate`, { method: "POST", key, json: { grace_minutes: 0 } });
    await expectGone(r.body.data.token);
    expect((await view(t, `/share/${r0.body.data.token}`)).status).toBe(200);
    const bad = await t.call(`${P}/shares/${s.share.id}/rotate`, { method: "POST", key, json: { grace_minutes: 100000 } });
    expect(bad.status).toBe(400);
  });

  test("a link share whose link is deleted shows nothing", async () => {
    const doomed = await createLink(t, key, "https://example.com/doomed");
    const s = await createShare(t, key, { title: "doomed", scope: "link", link_id: doomed.id, reports: ["summary"] });
    expect((await view(t, `/share/${s.token}`)).status).toBe(200);
    expect((await t.call(`${P}/links/${doomed.id}`, { method: "DELETE", key })).status).toBe(200);
    await expectGone(s.token);
  });
});

test("every other route refuses the share token, as a key, a bearer token or a session cookie", async () => {
  const s = await createShare(t, key, { title: "token", scope: "account", reports: ["summary"] });
  const id = crypto.randomUUID();
  const routes = t.runtime.app.routes
    .map((r) => ({ method: r.method, path: r.path }))
    .filter((r) => /^\/(public-api|admin|console\/api)\//.test(r.path) && r.method !== "OPTIONS" && !r.path.includes("/docs"));
  const ask = async (method: string, path: string, headers: Record<string, string>) =>
    (
      await t.runtime.app.handle(
        new Request(`http://127.0.0.1:3000${path}`, {
          method,
          headers: { ...headers, "content-type": "application/json", origin: "http://127.0.0.1:3000" },
          body: ["GET", "HEAD"].includes(method) ? undefined : "{}",
        }),
      )
    ).status;
  const failures: string[] = [];
  let guarded = 0;
  for (const r of routes) {
    const path = r.path.replace(/:[a-z_]+/gi, id).replace(/\*$/, "x");
    // The routes open to anyone (sign-in, sign-up, the console's config) answer the token as they answer nobody.
    const anonymous = await ask(r.method, path, {});
    if (anonymous === 401) guarded++;
    const credentials: Record<string, string>[] = [
      { "x-api-key": s.token },
      { authorization: `Bearer ${s.token}` },
      { cookie: `svc_session=${s.token}` },
    ];
    for (const headers of credentials) {
      const status = await ask(r.method, path, headers);
      if (status !== anonymous) failures.push(`${r.method} ${r.path} ${Object.keys(headers)[0]} → ${status} (anonymous ${anonymous})`);
    }
  }
  expect(guarded).toBeGreaterThan(60);
  expect(failures).toEqual([]);
});
