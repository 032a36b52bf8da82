// GET /links/{id}/stats: lifetime numbers of one link, bots and people apart, conversions from journey events.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { createLink, DAY_MS, get, P, rawClick, spoolClicks, UA, visit } from "./helpers";

let t: TestApp;
let key: string;
let accountId: string;
beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" });
  ({ key, accountId } = await t.createAccount({ tier: "growth" }));
}, 60_000);
afterAll(() => t.close());

function spoolConversions(linkId: string, visitorIds: string[]) {
  return t.runtime.deps.streams.journey.append(
    visitorIds.map((visitor_id) => ({
      event_id: crypto.randomUUID(),
      received_at: Date.now(),
      account_id: accountId,
      event: { link_id: linkId, visitor_id, event_type: "conversion", page_url: "/thanks", revenue_cents: 1000 },
    })),
  );
}

describe("GET /links/{id}/stats", () => {
  test("a new link: zeros, one day active, no last access", async () => {
    const link = await createLink(t, key, "https://example.com/new");
    const res = await get(t, key, `/links/${link.id}/stats`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      short_code: link.short_code,
      original_url: "https://example.com/new",
      total_clicks: 0,
      unique_visitors: 0,
      bot_clicks: 0,
      human_clicks: 0,
      last_accessed_at: null,
      is_active: true,
      days_active: 1,
      average_clicks_per_day: 0,
      conversion_rate: 0,
      imported_clicks: 0,
    });
  });

  test("clicks from redirects: humans and bots add up; visitors and conversion rate", async () => {
    const link = await createLink(t, key, "https://example.com/stats");
    const visits = [
      { ip: "8.8.8.8", ua: UA.iphone },
      { ip: "8.8.8.8", ua: UA.iphone },
      { ip: "81.2.69.142", ua: UA.windowsChrome },
      { ip: "133.242.0.1", ua: UA.androidChrome },
      { ip: "200.160.2.3", ua: UA.googlebot },
      { ip: "49.12.0.1", ua: UA.twitter },
      { ip: "49.12.0.2", ua: UA.curl },
    ];
    for (const v of visits) await visit(t, link.short_code, v);
    await spoolConversions(link.id, ["v1", "v1", "v2"]);
    await t.flush();
    const res = await get(t, key, `/links/${link.id}/stats`);
    const s = res.body.data;
    expect(s).toMatchObject({
      total_clicks: 7,
      human_clicks: 4,
      bot_clicks: 3,
      unique_visitors: 3,
      is_active: true,
      days_active: 1,
      average_clicks_per_day: 7,
    });
    expect(s.conversion_rate).toBe(Math.round((2 / 3) * 100 * 100) / 100);
    const [row] = await t.runtime.deps.pg.query<{ last_accessed_at: string }>(
      sql`select last_accessed_at from links where id = ${link.id}`,
    );
    expect(s.last_accessed_at).toBe(new Date(row.last_accessed_at).toISOString());
  });

  test("a link only bots followed still shows its clicks (as bot clicks, with no visitors)", async () => {
    const link = await createLink(t, key, "https://example.com/bots-only");
    for (const ua of [UA.googlebot, UA.curl]) await visit(t, link.short_code, { ip: "200.160.2.3", ua });
    await t.flush();
    const s = (await get(t, key, `/links/${link.id}/stats`)).body.data;
    expect(s).toMatchObject({ total_clicks: 2, human_clicks: 0, bot_clicks: 2, unique_visitors: 0 });
    expect(s.last_accessed_at).not.toBeNull();
  });

  test("days_active counts from creation; the average divides by it; inactive links still report", async () => {
    const link = await createLink(t, key, "https://example.com/old");
    await t.runtime.deps.pg.query(sql`update links set created_at = now() - interval '10 days 2 hours' where id = ${link.id}`);
    await spoolClicks(
      t,
      Array.from({ length: 25 }, (_, i) =>
        rawClick({ account_id: accountId, link_id: link.id, ts: Date.now() - (i % 9) * DAY_MS, ip: `8.8.4.${i}` }),
      ),
    );
    await t.call(`${P}/links/${link.id}`, { method: "PATCH", key, json: { is_active: false } });
    const s = (await get(t, key, `/links/${link.id}/stats`)).body.data;
    expect(s).toMatchObject({
      total_clicks: 25,
      human_clicks: 25,
      bot_clicks: 0,
      unique_visitors: 25,
      days_active: 10,
      average_clicks_per_day: 2.5,
      is_active: false,
    });
  });

  test("404 for an unknown link, another account's link and a deleted link", async () => {
    const link = await createLink(t, key);
    const other = await t.createAccount();
    expect((await get(t, key, `/links/${crypto.randomUUID()}/stats`)).status).toBe(404);
    const foreign = await get(t, other.key, `/links/${link.id}/stats`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("NOT_FOUND");
    await t.call(`${P}/links/${link.id}`, { method: "DELETE", key });
    expect((await get(t, key, `/links/${link.id}/stats`)).status).toBe(404);
    expect((await get(t, key, `/links/not-a-uuid/stats`)).status).toBe(400);
  });
});
