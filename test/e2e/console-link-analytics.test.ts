// Issue 25 in headless Chromium: a link's own analytics (its clicks, not the account's; people and bots
// apart; breakdowns), the links list's status and clicks column, and the list's address staying under one
// /console whatever is filtered or sorted. Screenshots go to test-artifacts/console/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { TestApp } from "../helpers/app";
import { launchBrowser, watchErrors } from "./browser";
import { asOwner as ownerApi, ownerPage, HUMAN_UA, IPHONE_UA, screenshot, settled, startConsoleServer } from "./console-setup";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let browser: Browser;
let page: Page;
let errors: string[];
const links: Record<string, { id: string; short_code: string }> = {};
const BOT_UA = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";

beforeAll(async () => {
  // No DNS record exists: every domain verification finds nothing (and asks no real resolver).
  ({ t, ...server } = await startConsoleServer({ TRUST_PROXY: "true" }, { resolveTxt: async () => [] }));
  browser = await launchBrowser();
  ({ page, errors } = await ownerPage(browser, t));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
});

/** A public API call with the owner's console session. */
const asOwner = (method: string, path: string, json?: unknown) => ownerApi(page, method, path, json);

const visit = (code: string, ua: string, ip: string, referrer?: string) =>
  fetch(`${server.url}/${code}`, {
    redirect: "manual",
    headers: { "user-agent": ua, "x-forwarded-for": ip, ...(referrer ? { referer: referrer } : {}) },
  }).then((r) => r.status);

describe("a link's analytics and the links list", () => {
  test("the link's page shows its own clicks and visitors, bots apart, and its breakdowns", async () => {
    for (const [name, json] of [
      ["busy", { url: "https://example.com/busy", title: "Busy" }],
      ["quiet", { url: "https://example.com/quiet", title: "Quiet" }],
    ] as const) {
      const res = await asOwner("POST", "/links", json);
      expect(res.status).toBe(201);
      links[name] = res.body.data;
    }
    // busy: one person on an iPhone in the US, twice from Google, and a link preview bot; quiet: one person in GB.
    expect(await visit(links.busy.short_code, IPHONE_UA, "8.8.8.8", "https://www.google.com/search?q=x")).toBe(302);
    expect(await visit(links.busy.short_code, IPHONE_UA, "8.8.8.8", "https://www.google.com/search?q=x")).toBe(302);
    expect(await visit(links.busy.short_code, BOT_UA, "133.242.0.1")).toBe(200);
    expect(await visit(links.quiet.short_code, HUMAN_UA, "81.2.69.142")).toBe(302);
    await t.flush();

    await page.goto(`${server.url}/console/links/${links.busy.id}`);
    const card = page.locator("#link-analytics-card");
    await card.locator(".figures").waitFor();
    await settled(page);
    const figures = await card.locator(".figure").allTextContents();
    expect(figures[0]).toStartWith("Clicks2");
    expect(figures[1]).toStartWith("Visitors1");
    expect(figures[2]).toStartWith("Bot clicks1");
    expect(await card.getByTestId("breakdown-country").locator("tbody th").allTextContents()).toEqual(["US"]);
    expect(await card.getByTestId("breakdown-referrer").locator("tbody th").allTextContents()).toEqual(["www.google.com"]);
    expect(await card.getByTestId("breakdown-os").locator("tbody th").allTextContents()).toEqual(["iOS"]);
    // The previous period had nothing: the change says "new".
    expect(figures[0]).toContain("new");
    await page.getByLabel("Range").selectOption("7");
    await page.waitForFunction(() => document.querySelector("#link-analytics-card figcaption")?.textContent?.includes("Clicks: 2"));
    // Compared with a year before: the link had no clicks then either, so the change still says "new".
    await page.getByLabel("Compare clicks with").selectOption("year");
    await page.waitForFunction(() =>
      document.querySelector("#link-analytics-card .figures")?.getAttribute("aria-label")?.includes("a year before"),
    );
    expect((await card.locator(".figure").first().textContent()) ?? "").toContain("new");
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1)).toBe(true);
    await screenshot(page, "link-analytics-desktop-dark", true);
    // The quiet link's page shows its own one click.
    await page.goto(`${server.url}/console/links/${links.quiet.id}`);
    await card.locator(".figures").waitFor();
    expect((await card.locator(".figure").first().textContent()) ?? "").toStartWith("Clicks1");
    expect(await card.getByTestId("breakdown-country").locator("tbody th").allTextContents()).toEqual(["GB"]);
    await expect(page.locator("#conversion-tracking-off").textContent()).resolves.toContain("Conversion tracking is off");
  }, 90_000);

  test("the links list: the status the redirect applies, clicks in the last 7 days, sorting by clicks", async () => {
    const expiring = await asOwner("POST", "/links", {
      url: "https://example.com/soon",
      title: "Soon over",
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    expect(expiring.status).toBe(201);
    const deadline = Date.now() + 10_000;
    while ((await visit(expiring.body.data.short_code, HUMAN_UA, "8.8.4.4")) !== 410 && Date.now() < deadline) await Bun.sleep(100);
    const off = await asOwner("POST", "/links", { url: "https://example.com/off", title: "Switched off" });
    expect((await asOwner("PATCH", `/links/${off.body.data.id}`, { is_active: false })).status).toBe(200);

    await page.goto(`${server.url}/console/links`);
    await page.locator("table.links-table tbody tr").first().waitFor();
    await settled(page);
    const statusOf = (title: string) => page.locator("tbody tr").filter({ hasText: title }).locator("[data-status]").textContent();
    expect(await statusOf("Soon over")).toBe("Expired");
    expect(await statusOf("Switched off")).toBe("Inactive");
    expect(await statusOf("Busy")).toBe("Active");
    const clicksOf = (title: string) => page.locator("tbody tr").filter({ hasText: title }).locator("td.clicks-cell").textContent();
    expect(await clicksOf("Busy")).toBe("2");
    expect(await clicksOf("Quiet")).toBe("1");
    expect(await page.locator("tbody tr").filter({ hasText: "Busy" }).locator("svg.sparkline").count()).toBe(1);

    await page.getByRole("button", { name: /^Clicks, 7 days/ }).click();
    await page.waitForURL((u) => u.searchParams.get("sort_by") === "clicks_7d" && u.searchParams.get("sort_order") === "desc");
    // The list is read again from the server, sorted there: wait for its new order.
    const inOrder = (first: string, second: string) =>
      page.waitForFunction(
        ([a, b]) => {
          const titles = [...document.querySelectorAll("tbody tr .muted.clip")].map((e) => e.textContent);
          const i = titles.indexOf(a);
          const j = titles.indexOf(b);
          return i >= 0 && j >= 0 && i < j && !document.querySelector("[aria-busy=true]");
        },
        [first, second],
        { timeout: 10_000 },
      );
    await inOrder("Busy", "Quiet");
    await page.getByRole("button", { name: /^Clicks, 7 days/ }).click();
    await page.waitForURL((u) => u.searchParams.get("sort_by") === "clicks_7d" && u.searchParams.get("sort_order") === "asc");
    await inOrder("Quiet", "Busy");
    await screenshot(page, "links-list-clicks-desktop-dark", true);
  }, 90_000);

  test("filters, sorts and pages keep one /console in the address, and the nav keeps its highlight", async () => {
    await page.goto(`${server.url}/console/links`);
    await page.locator("table.links-table").waitFor();
    await page.getByLabel("Sort by").selectOption("title");
    await page.waitForURL(/sort_by=title/);
    await page.getByLabel("Order").selectOption("asc");
    await page.waitForURL(/sort_order=asc/);
    await page.getByLabel("Search").fill("Busy");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/search=Busy/);
    expect(new URL(page.url()).pathname).toBe("/console/links");
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe("Links");
    expect(errors.filter((e) => !/status of (401|404)/.test(e))).toEqual([]);
  }, 60_000);
});

describe("render time", () => {
  test("the link page's analytics and the links list with its clicks column render fast (median of 5, printed)", async () => {
    const median = async (url: string, ready: string) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await page.goto(url);
        await page.locator(ready).first().waitFor();
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[2];
    };
    // Same-run baseline: a page this change left alone (the machine is shared; read ratios).
    const baseline = await median(`${server.url}/console/account`, "main h1");
    const heading = await median(`${server.url}/console/links/${links.busy.id}`, "main h1");
    const link = await median(`${server.url}/console/links/${links.busy.id}`, "#link-analytics-card .breakdowns");
    const list = await median(`${server.url}/console/links`, "td.clicks-cell");
    const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
    console.log(
      `render, median of 5: account page (baseline) ${Math.round(baseline)} ms, link page ${Math.round(heading)} ms, with its analytics ${Math.round(link)} ms, links list with clicks ${Math.round(list)} ms (load ${load})`,
    );
    // A bound for a shared 2-core machine; the figures printed are the ones to read.
    expect(link).toBeLessThan(2000);
    expect(list).toBeLessThan(2000);
  }, 60_000);
});

describe("editable destination", () => {
  test("the form changes a link's destination; the link keeps its code and clicks and lists the earlier one", async () => {
    await page.goto(`${server.url}/console/links/${links.quiet.id}/edit`);
    await page.getByLabel("Destination URL").fill("https://example.com/quiet-fixed");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(`${server.url}/console/links/${links.quiet.id}`);
    await page.locator("#destinations").waitFor();
    const rows = await page.locator("#destinations tbody tr td:first-child").allTextContents();
    expect(rows).toEqual(["https://example.com/quiet-fixed", "https://example.com/quiet"]);
    const res = await fetch(`${server.url}/${links.quiet.short_code}`, { redirect: "manual", headers: { "user-agent": HUMAN_UA } });
    expect(res.headers.get("location")).toBe("https://example.com/quiet-fixed");
    await t.flush();
    await page.reload();
    await page.locator("#link-analytics-card .figure").first().waitFor();
    expect((await page.locator("#link-analytics-card .figure").first().textContent()) ?? "").toStartWith("Clicks2");
    await screenshot(page, "link-destinations-desktop-dark", true);
  }, 60_000);
});

describe("campaigns", () => {
  test("the campaigns page creates one, the link form offers it, and the page counts its links' clicks", async () => {
    await page.goto(`${server.url}/console/campaigns`);
    await page.getByLabel("Name").fill("Spring launch");
    await page.getByRole("button", { name: "Create campaign" }).click();
    await page.locator("#campaigns tbody tr").filter({ hasText: "Spring launch" }).waitFor();
    await page.goto(`${server.url}/console/links/${links.busy.id}/edit`);
    await page.getByLabel("Campaign", { exact: true }).selectOption({ label: "Spring launch" });
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(`${server.url}/console/links/${links.busy.id}`);
    await page.goto(`${server.url}/console/campaigns`);
    const row = page.locator("#campaigns tbody tr").filter({ hasText: "Spring launch" });
    await row.waitFor();
    expect(await row.locator("td").nth(1).textContent()).toBe("2");
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe("Campaigns");
    await screenshot(page, "campaigns-desktop-dark", true);
  }, 60_000);
});

describe("tracker onboarding", () => {
  test("a new tracker key comes with the snippet filled in and a live check that sees the first event", async () => {
    await page.goto(`${server.url}/console/keys`);
    await page.getByLabel("Name").fill("site tracker");
    await page.getByRole("button", { name: "Tracker: journey:write only" }).click();
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key-value").textContent())!;
    await page.getByLabel("Link whose destination page gets the tracker").selectOption({ label: "Quiet" });
    const code = (await page.locator("#tracker-code").textContent())!;
    expect(code).toContain(`src="${server.url}/t.js" data-key="${key}" data-link-id="${links.quiet.id}"`);
    await page.locator("#first-event", { hasText: "Waiting for the first event" }).waitFor();
    await screenshot(page, "tracker-onboarding-waiting-desktop-dark");
    const event = {
      link_id: links.quiet.id,
      visitor_id: "v-1",
      session_id: "s-1",
      page_url: "https://example.com/quiet-fixed",
      event_type: "page_view",
      timestamp: new Date().toISOString(),
    };
    const sent = await fetch(`${server.url}/public-api/v1/journey/events`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ events: [event] }),
    });
    expect(sent.status).toBe(202);
    await t.flush();
    await page.locator("#first-event", { hasText: "First event received" }).waitFor({ timeout: 20_000 });
    await screenshot(page, "tracker-onboarding-received-desktop-dark");
  }, 60_000);
});

describe("defects of the first walk", () => {
  test("a member opening /console/keys reads who can make keys, with no form that can only fail", async () => {
    const inv = await page.evaluate(async () => {
      const session = await (await fetch("/console/api/session")).json();
      const res = await fetch("/console/api/team/invitations", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": session.data.csrf_token },
        body: JSON.stringify({ email: "member@example.com", role: "member" }),
      });
      return (await res.json()).data;
    });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US", colorScheme: "dark" });
    const member = await ctx.newPage();
    const memberErrors = watchErrors(member);
    await member.goto(inv.invitation_url);
    await member.getByLabel("Password").fill("correct horse battery");
    await member.getByRole("button", { name: "Accept the invitation" }).click();
    await member.waitForURL(/\/console\/links$/);
    await member.goto(`${server.url}/console/keys`);
    await member.locator("#keys-ask").waitFor();
    expect(await member.locator("main").textContent()).toContain("Your role (member) can't create or revoke API keys.");
    expect(await member.getByRole("button", { name: "Create key" }).count()).toBe(0);
    // Nothing was asked of the API that it refuses: no 401 while signed out, no 403 on the keys page.
    expect(memberErrors).toEqual([]);
    await screenshot(member, "keys-member-desktop-dark");
    await ctx.close();
  }, 60_000);

  test("signed out, a page asked for leads to sign-in without an error logged, and signing in returns to it", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US", colorScheme: "dark" });
    const p = await ctx.newPage();
    const errs = watchErrors(p);
    await p.goto(`${server.url}/console/links/${links.quiet.id}`);
    await p.waitForURL(/\/console\/sign-in\?next=/);
    await p.getByLabel("Email").fill("owner@example.com");
    await p.getByLabel("Password").fill("correct horse battery");
    await p.getByRole("button", { name: "Sign in" }).click();
    await p.waitForURL(`${server.url}/console/links/${links.quiet.id}`);
    await p.locator("#link-analytics-card").waitFor();
    expect(errs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("a pasted https://Go.Example.com/ is added as go.example.com; a failed verification says why, as a warning", async () => {
    await page.goto(`${server.url}/console/domains`);
    await page.getByLabel("Domain name").fill("https://Go.Example.com/");
    await page.getByRole("button", { name: "Add domain" }).click();
    const card = page.locator("li.card").filter({ hasText: "go.example.com" });
    await card.waitFor();
    expect(await card.locator("h2").textContent()).toContain("go.example.com");
    await card.getByRole("button", { name: /^Verify/ }).click();
    const failed = card.locator(".verify-failed");
    await failed.waitFor();
    expect(await failed.textContent()).toContain("No TXT record _svc-verify.go.example.com");
    // Shown as a warning, not in the green of a success.
    const colour = await failed.evaluate((e) => getComputedStyle(e).color);
    const ok = await page.evaluate(() => {
      const probe = document.body.appendChild(document.createElement("span"));
      probe.style.color = "var(--ok)";
      const c = getComputedStyle(probe).color;
      probe.remove();
      return c;
    });
    expect(colour).not.toBe(ok);
    expect(await page.locator("p.status").textContent()).toBe("");
    await screenshot(page, "domain-verify-failed-desktop-dark");
  }, 60_000);

  test("titles name the page once; a missing link says so without 'Try again'; the owner's own row has no role select or Remove", async () => {
    await page.goto(`${server.url}/console/links`);
    // The page's heading names the document once rendered (an effect, a frame after the heading shows).
    const title = (want: string) =>
      page
        .waitForFunction((t) => document.title === t, want, { timeout: 10_000 })
        .catch(() => undefined)
        .then(() => page.title());
    await page.locator("table.links-table").waitFor();
    expect(await title("Links · svc console")).toBe("Links · svc console");
    await page.goto(`${server.url}/console/links/${crypto.randomUUID()}`);
    await page.locator("#not-found").waitFor();
    expect(await page.locator("main h1").textContent()).toBe("Not found");
    expect(await page.getByRole("button", { name: "Try again" }).count()).toBe(0);
    expect(await title("Not found · svc console")).toBe("Not found · svc console");
    await page.goto(`${server.url}/console/team`);
    const me = page.locator("#members tbody tr").filter({ hasText: "owner@example.com" });
    await me.waitFor();
    expect(await me.locator("select").count()).toBe(0);
    expect(await me.getByRole("button", { name: /Remove/ }).count()).toBe(0);
    // Another member's row keeps them.
    const other = page.locator("#members tbody tr").filter({ hasText: "member@example.com" });
    expect(await other.locator("select").count()).toBe(1);
  }, 60_000);

  test("forms do not send what they know is wrong; API errors name fields as the form does", async () => {
    const posts: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => {
      if (r.method() === "POST") posts.push(new URL(r.url()).pathname);
    };
    page.on("request", onRequest);
    await page.goto(`${server.url}/console/keys`);
    await page.getByLabel("Name").fill("nothing allowed");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("alert").filter({ hasText: "Choose at least one scope." }).first().waitFor();
    await page.goto(`${server.url}/console/links/new`);
    await page.getByLabel("Destination URL").fill("https://example.com/ab");
    await page.getByRole("button", { name: "Add a variant" }).click();
    const variants = page.locator("#variants > li");
    await variants.nth(0).getByLabel("Variant URL").fill("https://example.com/a");
    await variants.nth(1).getByLabel("Variant URL").fill("https://example.com/b");
    await variants.nth(0).getByLabel("Weight (%)").fill("40");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.getByRole("alert").filter({ hasText: "weights add up to 90%" }).first().waitFor();
    page.off("request", onRequest);
    expect(posts.filter((p) => p.endsWith("/keys") || p.endsWith("/links"))).toEqual([]);
    // What the API refuses is named as the form counts: rule 1, not rules.0; no status or code.
    await variants.nth(0).getByLabel("Weight (%)").fill("50");
    await page.getByRole("button", { name: "Add a rule" }).click();
    await page.locator("#rules > li").first().getByLabel("Countries").fill("ZZ");
    await page.locator("#rules > li").first().getByLabel("Then send visitors to").fill("https://example.com/de");
    await page.getByRole("button", { name: "Create link" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Please check" }).first();
    await alert.waitFor();
    const text = (await alert.textContent()) ?? "";
    expect(text).toContain("Rule 1, country 1:");
    expect(text).not.toContain("body.");
    expect(text).not.toContain("VALIDATION_ERROR");
  }, 60_000);

  test("a session's timeline shows seconds, scroll depth and revenue", async () => {
    const at = (s: number) => new Date(Date.now() - 120_000 + s * 1000).toISOString();
    const base = { link_id: links.busy.id, visitor_id: "v-t", session_id: "s-timeline", page_url: "https://example.com/busy" };
    const events = [
      { ...base, event_type: "page_view", timestamp: at(0) },
      { ...base, event_type: "scroll_depth", scroll_percent: 75, timestamp: at(7) },
      { ...base, event_type: "conversion", event_name: "purchase", revenue_cents: 1250, currency: "EUR", timestamp: at(19) },
    ];
    expect((await asOwner("POST", "/journey/events", { events })).status).toBe(202);
    await t.flush();
    await page.goto(`${server.url}/console/links/${links.busy.id}`);
    await page.locator(".session-toggle").first().click();
    await page.locator("ol.events li").nth(2).waitFor();
    const items = await page.locator("ol.events li").allTextContents();
    expect(items[1]).toContain("scrolled 75%");
    expect(items[2]).toContain("12.50 EUR");
    // Seconds apart, and the times say so.
    expect(items[0]).toMatch(/\d{1,2}:\d{2}:\d{2}/);
  }, 60_000);

  test("on a phone the links list starts on the first screen and the new-link form is folded", async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-US", colorScheme: "dark", isMobile: true });
    await ctx.addCookies(await page.context().cookies());
    const p = await ctx.newPage();
    await p.goto(`${server.url}/console/links`);
    await p.locator("table.links-table tbody tr").first().waitFor();
    expect(await p.locator("#links-filters").evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    const firstRowTop = await p
      .locator("table.links-table tbody tr")
      .first()
      .evaluate((e) => e.getBoundingClientRect().top);
    expect(firstRowTop).toBeLessThan(844);
    await screenshot(p, "links-filters-folded-phone-dark");
    await p.goto(`${server.url}/console/links/new`);
    await p.locator("form").waitFor();
    const height = await p.locator("form").evaluate((f) => f.getBoundingClientRect().height);
    console.log(`new-link form at 390 px: ${Math.round(height)} px`);
    expect(height).toBeLessThan(1800);
    await screenshot(p, "link-form-new-folded-phone-dark", true);
    await ctx.close();
  }, 60_000);

  test("breakdown widgets show a long referrer whole (news.ycombinator.com, not news.ycombinator.co)", async () => {
    expect(await visit(links.busy.short_code, HUMAN_UA, "5.45.207.1", "https://news.ycombinator.com/item?id=1")).toBe(302);
    await t.flush();
    await page.goto(`${server.url}/console/analytics`);
    await page.waitForFunction(() => (document.getElementById("w-referrers") as any)?.state === "loaded", undefined, { timeout: 20_000 });
    const fits = await page.evaluate(() => {
      const root = document.getElementById("w-referrers")!.shadowRoot!;
      const label = [...root.querySelectorAll("text.lbl")].find((t) => t.textContent === "news.ycombinator.com") as SVGTextElement;
      const box = (label.parentNode as SVGSVGElement).getBoundingClientRect();
      return label.getComputedTextLength() <= box.width - 0.08 * box.width;
    });
    expect(fits).toBe(true);
    await screenshot(page, "analytics-breakdowns-desktop-dark", true);
  }, 60_000);

  test("the preview image stays inside its card on the form, at 1280 px and at 390 px", async () => {
    const img = "data:image/svg+xml," + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1260"/>');
    for (const width of [1280, 390]) {
      const ctx = await browser.newContext({
        viewport: { width, height: 900 },
        locale: "en-US",
        colorScheme: "dark",
        isMobile: width < 500,
      });
      await ctx.addCookies(await page.context().cookies());
      const p = await ctx.newPage();
      await p.goto(`${server.url}/console/links/new`);
      await p.locator("form").waitFor();
      // On a phone the optional parts of the form are folded: unfold this one.
      if (width < 500) await p.locator("summary", { hasText: "Preview image" }).click();
      await p.getByLabel("Image URL").fill("https://example.com/og.png");
      await p.locator("img.og-preview").waitFor();
      await p.evaluate((src) => ((document.querySelector("img.og-preview") as HTMLImageElement).src = src), img);
      const inside = await p.evaluate(() => {
        const box = document.querySelector("img.og-preview")!.getBoundingClientRect();
        const set = document.querySelector("img.og-preview")!.closest("fieldset")!.getBoundingClientRect();
        const card = document.querySelector("img.og-preview")!.closest("form")!.getBoundingClientRect();
        return {
          inFieldset: box.right <= set.right + 0.5,
          inCard: set.right <= card.right + 0.5,
          noSideScroll: document.documentElement.scrollWidth <= innerWidth + 1,
        };
      });
      expect({ width, ...inside }).toEqual({ width, inFieldset: true, inCard: true, noSideScroll: true });
      await screenshot(p, `link-form-preview-${width < 500 ? "phone" : "desktop"}-dark`);
      await ctx.close();
    }
  }, 60_000);
});
