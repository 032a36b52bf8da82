import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { createLink, rawClick, spoolClicks, UA, visit } from "./helpers";
import { createClickEnricher } from "../../server/ingest/clicks/enrich";
import { referrerHost } from "../../server/visitors/hosts";
import { classifyBot, parseUserAgent } from "../../server/visitors/user-agent";

let t: TestApp;
let key: string;
let accountId: string;
beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" });
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
}, 60_000);
afterAll(() => t.close());

const clickRows = (linkId: string) =>
  t.runtime.deps.ch.query<Record<string, any>>(
    `SELECT * FROM ${t.runtime.deps.ch.table("clicks")} WHERE link_id = {link:UUID} ORDER BY timestamp`,
    { link: linkId },
  );

describe("click enrichment through real redirects", () => {
  test("device, browser, OS, country, referrer host and bot class land in ClickHouse; addresses do not", async () => {
    const link = await createLink(t, key);
    const visits = [
      { ip: "8.8.8.8", ua: UA.iphone, referrer: "https://www.Google.com/search?q=x" },
      { ip: "81.2.69.142", ua: UA.ipad, referrer: "https://news.ycombinator.com/item?id=1" },
      { ip: "2a00:1450:4001::1", ua: UA.windowsChrome },
      { ip: "10.0.0.7", ua: UA.macFirefox, country: "FR" },
      { ip: "127.0.0.1", ua: UA.androidChrome },
      { ip: "133.242.0.1", ua: UA.slack },
      { ip: "200.160.2.3", ua: UA.googlebot },
      { ip: "49.12.0.1", ua: UA.curl, referrer: "not a url" },
    ];
    for (const v of visits) expect([200, 302]).toContain(await visit(t, link.short_code, v));
    await t.flush();
    const rows = await clickRows(link.id);
    expect(rows.length).toBe(visits.length);
    // Two redirects can fall in the same millisecond, so rows are compared without their order.
    const pick = (r: Record<string, any>) => [r.device_type, r.browser, r.os, r.country_code, r.referrer, r.is_bot, r.bot_kind];
    const sorted = (list: unknown[][]) => list.map((x) => JSON.stringify(x)).sort();
    expect(sorted(rows.map(pick))).toEqual(
      sorted([
        ["mobile", "Mobile Safari", "iOS", "US", "www.google.com", 0, ""],
        ["tablet", "Mobile Safari", "iOS", "GB", "news.ycombinator.com", 0, ""],
        ["desktop", "Chrome", "Windows", "DE", "direct", 0, ""],
        ["desktop", "Firefox", "macOS", "FR", "direct", 0, ""],
        ["mobile", "Mobile Chrome", "Android", "XX", "direct", 0, ""],
        ["desktop", "", "", "JP", "direct", 1, "preview"],
        ["desktop", "", "", "BR", "direct", 1, "crawler"],
        ["desktop", "", "", "DE", "direct", 1, "automation"],
      ]),
    );
    expect(rows.find((r) => r.referrer === "www.google.com")?.referrer_url).toBe("https://www.Google.com/search?q=x");
    const dump = JSON.stringify(rows);
    for (const v of visits) expect(dump).not.toContain(v.ip);
    expect(new Set(rows.map((r) => r.visitor_hash)).size).toBe(visits.length);
    expect(rows.every((r) => /^[0-9]+$/.test(String(r.visitor_hash)) && r.visitor_hash !== "0")).toBe(true);
  });

  test("the same address and agent is one visitor on a day; another agent is another visitor", async () => {
    const link = await createLink(t, key);
    await visit(t, link.short_code, { ip: "8.8.8.8", ua: UA.iphone });
    await visit(t, link.short_code, { ip: "8.8.8.8", ua: UA.iphone, referrer: "https://t.co/x" });
    await visit(t, link.short_code, { ip: "8.8.8.8", ua: UA.windowsChrome });
    await t.flush();
    const rows = await clickRows(link.id);
    const iphone = rows.filter((r) => r.os === "iOS").map((r) => r.visitor_hash);
    const windows = rows.filter((r) => r.os === "Windows").map((r) => r.visitor_hash);
    expect(iphone.length).toBe(2);
    expect(iphone[0]).toBe(iphone[1]);
    expect(windows.length).toBe(1);
    expect(windows[0]).not.toBe(iphone[0]);
  });

  test("moves the link's last_accessed_at to the latest click", async () => {
    const link = await createLink(t, key);
    const before = Date.now();
    await visit(t, link.short_code, { ip: "8.8.8.8", ua: UA.iphone });
    await t.flush();
    const [row] = await t.runtime.deps.pg.query<{ last_accessed_at: string }>(
      sql`select last_accessed_at from links where id = ${link.id}`,
    );
    expect(new Date(row.last_accessed_at).getTime()).toBeGreaterThanOrEqual(before - 5);
    // An older click replayed later never moves it back.
    await spoolClicks(t, [rawClick({ account_id: accountId, link_id: link.id, ts: before - 86_400_000 })]);
    const [again] = await t.runtime.deps.pg.query<{ last_accessed_at: string }>(
      sql`select last_accessed_at from links where id = ${link.id}`,
    );
    expect(again.last_accessed_at).toEqual(row.last_accessed_at);
  });
});

describe("enrichment rules", () => {
  test("bot classes: link previews, crawlers, automation; people are not bots", () => {
    expect(classifyBot("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)").bot_kind).toBe("preview");
    expect(classifyBot("Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)").bot_kind).toBe("preview");
    expect(classifyBot("LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)").bot_kind).toBe("preview");
    expect(classifyBot("WhatsApp/2.23.20.0 A").bot_kind).toBe("preview");
    expect(classifyBot("TelegramBot (like TwitterBot)").bot_kind).toBe("preview");
    expect(
      classifyBot(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
      ).bot_kind,
    ).toBe("preview");
    expect(classifyBot(UA.twitter).bot_kind).toBe("preview");
    expect(classifyBot("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)").bot_kind).toBe("crawler");
    expect(classifyBot("python-requests/2.31.0").bot_kind).toBe("automation");
    expect(classifyBot(UA.headless).bot_kind).toBe("automation");
    expect(classifyBot("").bot_kind).toBe("automation");
    for (const ua of [UA.iphone, UA.ipad, UA.windowsChrome, UA.macFirefox, UA.androidChrome])
      expect(classifyBot(ua)).toEqual({ is_bot: 0, bot_kind: "" });
  });

  test("client hints fill in what the agent string leaves out", () => {
    const reduced = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
    expect(parseUserAgent(reduced, { mobile: "?1", platform: '"Android"' }).device_type).toBe("mobile");
    expect(parseUserAgent("SomeApp/1.0", { platform: '"Windows"' }).os).toBe("Windows");
  });

  test("referrers are reduced to their host; none is direct", () => {
    expect(referrerHost("")).toBe("direct");
    expect(referrerHost("https://WWW.Example.COM:8443/a?b")).toBe("www.example.com");
    expect(referrerHost("garbage")).toBe("direct");
  });

  test("is deterministic: the same records give identical rows", async () => {
    const deps = t.runtime.deps;
    const enrich = createClickEnricher({ store: deps, trustProxy: true, hashSecret: t.config.appSecret });
    const clicks = [UA.iphone, UA.slack, UA.windowsChrome].map((ua, i) =>
      rawClick({ account_id: accountId, link_id: crypto.randomUUID(), ua, ip: `81.2.69.${140 + i}`, ts: Date.now() - i * 1000 }),
    );
    expect(await enrich(clicks)).toEqual(await enrich(clicks));
    const fresh = createClickEnricher({ store: deps, trustProxy: true, hashSecret: t.config.appSecret });
    expect(await fresh(clicks)).toEqual(await enrich(clicks));
    // APP_SECRET keys the hashes: the day's salt from Postgres alone does not reproduce them.
    const otherSecret = createClickEnricher({ store: deps, trustProxy: true, hashSecret: "another-app-secret-of-32-characters!" });
    const [mine, theirs] = [await enrich(clicks), await otherSecret(clicks)];
    expect(theirs.map((r) => r.visitor_hash)).not.toEqual(mine.map((r) => r.visitor_hash));
    expect(theirs.map((r) => r.country_code)).toEqual(mine.map((r) => r.country_code));
  });

  test("the proxy's country header counts only with TRUST_PROXY", async () => {
    const deps = t.runtime.deps;
    const click = rawClick({ account_id: accountId, link_id: crypto.randomUUID(), ip: "8.8.8.8", geo_country: "ca" });
    expect((await createClickEnricher({ store: deps, trustProxy: true, hashSecret: t.config.appSecret })([click]))[0].country_code).toBe(
      "CA",
    );
    expect((await createClickEnricher({ store: deps, trustProxy: false, hashSecret: t.config.appSecret })([click]))[0].country_code).toBe(
      "US",
    );
    const tor = { ...click, geo_country: "T1" };
    expect((await createClickEnricher({ store: deps, trustProxy: true, hashSecret: t.config.appSecret })([tor]))[0].country_code).toBe(
      "US",
    );
  });
});
