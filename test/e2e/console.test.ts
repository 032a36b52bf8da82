// Issue 19: the web console in headless Chromium against our real server, driven as people would:
// a new owner follows the setup link, creates a link and follows it, creates a tracker key and ingests
// with it, adds a webhook and sees a signed delivery arrive, invites a viewer who can read but not
// write; a page of another origin cannot change anything; another account's ids are 404.
// Screenshots go to test-artifacts/console/ (and docs/console/ with UPDATE_DOCS_SCREENSHOT=1).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { TestApp } from "../helpers/app";
import { firstOwnerLink } from "../helpers/console";
import { startReceiver, verifySvcSignature, type Receiver } from "../webhooks/receiver";
import { launchBrowser, watchErrors } from "./browser";
import { checkPage, HUMAN_UA, inEveryLook, PASSWORD, settled, startConsoleServer, unlabelled } from "./console-setup";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let browser: Browser;
let receiver: Receiver;
let owner: BrowserContext;
let page: Page;
let errors: string[];
const state: { linkId?: string; code?: string; key?: string; secret?: string; webhookId?: string; invitation?: string } = {};

/** The browser logs a failed load for answers we expect (401 before sign-in, 403/404 we provoke). */
const unexpected = (errs: string[]) => errs.filter((e) => !/status of (401|403|404)/.test(e));

beforeAll(async () => {
  ({ t, ...server } = await startConsoleServer({ WEBHOOK_ALLOW_INSECURE: "true", WEBHOOK_RETRY_DELAYS_MS: "50,100" }));
  browser = await launchBrowser();
  receiver = startReceiver();
  owner = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: "light", locale: "en-US", timezoneId: "UTC" });
  page = await owner.newPage();
  errors = watchErrors(page);
  page.on("dialog", (d) => void d.accept());
});
afterAll(async () => {
  receiver?.stop();
  await browser?.close();
  await server?.stop();
  await t?.close();
});

async function api(path: string, init: RequestInit = {}, key = state.key) {
  const res = await fetch(server.url + path, {
    ...init,
    headers: { "x-api-key": key!, "content-type": "application/json", ...init.headers },
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe("the console in Chromium", () => {
  test("a new owner follows the setup link and lands on an empty links page", async () => {
    await page.goto(await firstOwnerLink(t));
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Set up your console");
    await page.getByLabel("Email").fill("owner@example.com");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create the owner" }).click();
    // The browser's own check (minlength) or the API's answer keeps us here; fix it and go on.
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create the owner" }).click();
    await page.waitForURL(/\/console\/links$/);
    await page.getByText("No links yet.").waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    expect(await unlabelled(page)).toEqual([]);
    // Keyboard: on a page the browser loads, the first Tab reaches the skip link.
    await page.reload();
    await page.getByText("No links yet.").waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
  }, 60_000);

  test("creates a link with UTM parameters and follows it; the click shows on its page", async () => {
    await page.getByRole("link", { name: "New link", exact: true }).click();
    await page.getByLabel("Destination URL").fill("https://example.com/pricing");
    await page.getByLabel("Title", { exact: true }).fill("Pricing <b>page</b>");
    await page.getByLabel("Tags").fill("launch, e2e");
    await page.getByLabel("UTM source").fill("newsletter");
    await expect(page.getByText("Visitors land on:").textContent()).resolves.toContain("https://example.com/pricing?utm_source=newsletter");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.waitForURL(/\/console\/links\/[0-9a-f-]{36}$/);
    state.linkId = page.url().split("/").pop();
    // What a user wrote is shown as text, never as markup.
    expect(await page.getByRole("heading", { level: 1 }).innerHTML()).toBe("Pricing &lt;b&gt;page&lt;/b&gt;");
    const shortUrl = (await page.locator("dl.details a").first().getAttribute("href"))!;
    state.code = shortUrl.split("/").pop();

    const res = await fetch(`${server.url}/${state.code}`, { redirect: "manual", headers: { "user-agent": HUMAN_UA } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://example.com/pricing?utm_source=newsletter");
    await t.flush();
    await page.reload();
    const figures = page.locator("#link-analytics-card .figure");
    await figures.first().waitFor();
    expect(await figures.allTextContents()).toEqual([
      expect.stringMatching(/^Clicks1 /),
      expect.stringMatching(/^Visitors1 /),
      expect.stringMatching(/^Bot clicks0 /),
    ]);
  }, 60_000);

  test("a new key with journey:write and more scopes gets no tracker snippet to paste into a public page", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name").fill("everything");
    await page.getByRole("button", { name: "Full access" }).click();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.locator("#new-key-value").waitFor();
    // Rendered together with the key: the warning instead of the snippet.
    await expect(page.locator("#tracker-key-warning").textContent()).resolves.toContain("create a key with journey:write only");
    expect(await page.locator("#tracker-snippet").count()).toBe(0);
    await page.getByRole("button", { name: "I have copied it" }).click();
  }, 60_000);

  test("creates a tracker key (shown once) and ingests an event with it; the journey shows on the link", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name").fill("site tracker");
    await page.getByRole("button", { name: "Tracker: journey:write only" }).click();
    const checked = await page.$$eval("fieldset.scopes input:checked", (els) => els.map((e) => (e as HTMLInputElement).value));
    expect(checked).toEqual(["journey:write"]);
    await page.getByRole("button", { name: "Create key" }).click();
    state.key = (await page.locator("#new-key-value").textContent())!;
    expect(state.key).toMatch(/^svc_[A-Za-z0-9_-]{28}$/);
    // The list reloads after the key is shown: wait for the reload before reading it.
    await page.locator("#keys", { hasText: state.key.slice(0, 8) }).waitFor();
    await expect(page.locator("#keys").textContent()).resolves.toContain(state.key.slice(0, 8));
    expect(await page.locator("#keys").textContent()).not.toContain(state.key);

    const at = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
    const base = { link_id: state.linkId, visitor_id: "visitor-1", session_id: "session-1", page_url: "https://example.com/pricing" };
    const events = [
      { ...base, event_type: "page_view", timestamp: at(3) },
      { ...base, event_type: "custom", event_name: "signup", timestamp: at(2) },
    ];
    expect((await api("/public-api/v1/journey/events", { method: "POST", body: JSON.stringify({ events }) })).status).toBe(202);
    expect((await api("/public-api/v1/links")).status).toBe(403); // journey:write only
    await t.flush();

    await page.goto(`${server.url}/console/links/${state.linkId}`);
    const summary = page.locator("#journey-summary");
    await summary.waitFor();
    await expect(summary.textContent()).resolves.toContain("Sessions1");
    await expect(summary.textContent()).resolves.toContain("Counted once per period: a visitor_id is the site's own stable id.");
    await page.locator(".session-toggle").first().click();
    await page.locator("ol.events li").nth(1).waitFor();
    await expect(page.locator("ol.events li").allTextContents()).resolves.toEqual([
      expect.stringContaining("page_view"),
      expect.stringContaining("signup"),
    ]);
    await page.getByLabel("Steps, in order, separated by commas").fill("page_view, signup");
    await page.getByRole("button", { name: "Show funnel" }).click();
    await page.waitForFunction(() => (document.getElementById("w-funnel") as any)?.state === "loaded", undefined, { timeout: 20_000 });
  }, 60_000);

  test("edits the link with an uploaded preview image, then deletes it and restores it from the trash", async () => {
    const sharp = (await import("sharp")).default;
    const png = await sharp({ create: { width: 120, height: 63, channels: 3, background: "#2454d6" } })
      .png()
      .toBuffer();
    await page.goto(`${server.url}/console/links/${state.linkId}/edit`);
    await page.getByLabel(/Or upload an image/).setInputFiles({ name: "og.png", mimeType: "image/png", buffer: png });
    expect(await page.locator("img.og-preview").getAttribute("src")).toMatch(/^blob:/);
    await page.getByLabel("Tags").fill("launch, e2e, edited");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.waitForURL(new RegExp(`/console/links/${state.linkId}$`));
    const img = page.locator("img.og-preview");
    await img.waitFor();
    expect(await img.getAttribute("src")).toMatch(/\/cdn\/og\/.+\.webp$/);
    await expect(page.locator("dl.details").textContent()).resolves.toContain("edited");

    await page.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(/\/console\/trash$/);
    await page.getByRole("button", { name: `Restore ${state.code}` }).click();
    await page.getByText(`${state.code} is back`).waitFor();
    expect((await fetch(`${server.url}/${state.code}`, { redirect: "manual" })).status).toBe(302);
  }, 60_000);

  test("adds a webhook (secret shown once), sends a test and sees the signed delivery arrive", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByLabel("link.created").check();
    await page.getByLabel("link.deleted").check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    state.secret = (await page.locator("#new-webhook-secret").textContent())!;
    expect(state.secret).toMatch(/^whsec_/);
    await page.getByRole("link", { name: "Open the endpoint" }).click();
    await page.waitForURL(/\/console\/webhooks\/[0-9a-f-]{36}$/);
    state.webhookId = page.url().split("/").pop();
    await page.getByRole("button", { name: "Send a test" }).click();
    await page.getByText("Test sent: delivered").waitFor();
    const [test] = await receiver.waitFor((r) => r.length >= 1);
    expect(test.json.event).toBe("test");
    expect(verifySvcSignature(state.secret, test)).toBe(true);
    await page.locator("#delivery-list summary").first().click();
    await expect(page.locator("#delivery-list").textContent()).resolves.toContain('"event": "test"');

    // A link created in the console is delivered, signed, as link.created.
    await page.goto(`${server.url}/console/links/new`);
    await page.getByLabel("Destination URL").fill("https://example.com/hooked");
    await page.getByLabel("Title", { exact: true }).fill("Hooked");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.waitForURL(/\/console\/links\/[0-9a-f-]{36}$/);
    const all = await receiver.waitFor((r) => r.some((x) => x.json?.event === "link.created"));
    const created = all.find((x) => x.json?.event === "link.created")!;
    expect(created.json.data.original_url).toBe("https://example.com/hooked");
    expect(verifySvcSignature(state.secret, created)).toBe(true);
  }, 60_000);

  test("invites a viewer, who reads but whose attempts to create or delete are refused", async () => {
    await page.getByRole("link", { name: "Team" }).click();
    await page.getByLabel("Email").fill("viewer@example.com");
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Invite" }).click();
    state.invitation = (await page.locator("#invitation-url").textContent())!;
    expect(state.invitation).toMatch(/\/console\/invite#/);

    const viewerCtx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
    const viewer = await viewerCtx.newPage();
    const viewerErrors = watchErrors(viewer);
    viewer.on("dialog", (d) => void d.accept());
    await viewer.goto(state.invitation);
    await viewer.getByText("You are invited to default as viewer.").waitFor();
    await viewer.getByLabel("Password").fill(PASSWORD);
    await viewer.getByRole("button", { name: "Accept the invitation" }).click();
    await viewer.waitForURL(/\/console\/links$/);
    await viewer.getByText("Hooked", { exact: true }).waitFor();
    expect(await viewer.getByRole("link", { name: "New link" }).count()).toBe(0);
    expect(await viewer.getByRole("link", { name: "API keys" }).count()).toBe(0);

    // The new-link page offers no form that could only fail; trying anyway, the API refuses the create.
    await viewer.goto(`${server.url}/console/links/new`);
    await viewer.locator(".not-allowed").filter({ hasText: "Your role (viewer) can't create links." }).waitFor();
    expect(await viewer.getByRole("button", { name: "Create link" }).count()).toBe(0);
    const created = await viewer.evaluate(async () => {
      const session = await (await fetch("/console/api/session")).json();
      const res = await fetch("/public-api/v1/links", {
        method: "POST",
        headers: { "x-csrf-token": session.data.csrf_token, "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com/viewer-made" }),
      });
      return { status: res.status, body: await res.json() };
    });
    expect(created.status).toBe(403);
    expect(created.body.error.message).toContain("Your role (viewer) does not allow links:write");
    await viewer.goto(`${server.url}/console/links/${state.linkId}`);
    await viewer.getByRole("heading", { level: 1 }).waitFor();
    expect(await viewer.getByRole("button", { name: "Delete" }).count()).toBe(0);
    const status = await viewer.evaluate(async (id) => {
      const session = await (await fetch("/console/api/session")).json();
      const res = await fetch(`/public-api/v1/links/${id}`, { method: "DELETE", headers: { "x-csrf-token": session.data.csrf_token } });
      return res.status;
    }, state.linkId);
    expect(status).toBe(403);
    const links = await api("/public-api/v1/links?search=viewer-made", {}, (await t.createAccount()).key);
    expect(links.body.data).toEqual([]);
    expect((await fetch(`${server.url}/${state.code}`, { redirect: "manual" })).status).toBe(302); // still there
    expect(unexpected(viewerErrors)).toEqual([]);
    await viewerCtx.close();
  }, 60_000);

  test("a page of another origin cannot change anything with the owner's session", async () => {
    const target = `${server.url}/public-api/v1/links`;
    // Same site (127.0.0.1), another port: the browser sends the cookie; the Origin check refuses.
    const evil = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(
          `<!doctype html><form id="f" method="post" action="${target}" enctype="text/plain"><input name='{"url":"https://evil.example/form","x":"' value='"}'></form>`,
          { headers: { "content-type": "text/html" } },
        ),
    });
    const logged = errors.length;
    try {
      const before = (await page.evaluate(
        async () => (await (await fetch("/public-api/v1/links?per_page=100")).json()).meta.total,
      )) as number;
      await page.goto(`http://127.0.0.1:${evil.port}/`);
      const outcome = await page.evaluate(async (target) => {
        const simple = await fetch(target, {
          method: "POST",
          mode: "no-cors",
          credentials: "include",
          headers: { "content-type": "text/plain" },
          body: JSON.stringify({ url: "https://evil.example/fetch" }),
        });
        let preflighted = "sent";
        try {
          await fetch(target.replace("/links", "/links/x"), {
            method: "DELETE",
            credentials: "include",
            headers: { "x-csrf-token": "guess" },
          });
        } catch {
          preflighted = "blocked by the browser";
        }
        return { simple: simple.type, preflighted };
      }, target);
      expect(outcome).toEqual({ simple: "opaque", preflighted: "blocked by the browser" });
      const [response] = await Promise.all([
        page.waitForNavigation(),
        page.evaluate(() => (document.getElementById("f") as HTMLFormElement).submit()),
      ]);
      expect(response!.status()).toBe(403);
      expect(await page.textContent("body")).toContain("CROSS_SITE_REQUEST");
      await page.goto(`${server.url}/console/links`);
      const after = (await page.evaluate(
        async () => (await (await fetch("/public-api/v1/links?per_page=100")).json()).meta.total,
      )) as number;
      expect(after).toBe(before);
      const search = await page.evaluate(async () => (await (await fetch("/public-api/v1/links?search=evil.example")).json()).data.length);
      expect(search).toBe(0);
    } finally {
      evil.stop(true);
      // The browser logs the blocked preflight and the refused requests: that is the point here.
      errors.splice(logged);
    }
  }, 60_000);

  test("another account's ids answer 404 in the console, as in the API", async () => {
    const other = await t.createAccount();
    const link = await api(
      "/public-api/v1/links",
      { method: "POST", body: JSON.stringify({ url: "https://example.com/theirs", title: "Theirs" }) },
      other.key,
    );
    const hook = await api(
      "/public-api/v1/webhooks",
      { method: "POST", body: JSON.stringify({ url: receiver.url, events: ["link.created"] }) },
      other.key,
    );
    // Another account's link is simply not found (no "Try again": it will not appear by trying).
    await page.goto(`${server.url}/console/links/${link.body.data.id}`);
    await page.locator("#not-found").waitFor();
    await expect(page.locator("#not-found").textContent()).resolves.toContain("does not exist");
    expect(await page.textContent("main")).not.toContain("Theirs");
    await page.goto(`${server.url}/console/webhooks/${hook.body.data.id}`);
    await page.locator("#not-found").waitFor();
    await expect(page.locator("#not-found").textContent()).resolves.toContain("does not exist");
    const ownerKey = (await t.createAccount()).key;
    expect((await api(`/public-api/v1/links/${link.body.data.id}`, {}, ownerKey)).status).toBe(404);
  }, 60_000);

  test("main pages: labelled controls, light and dark, desktop and phone; screenshots", async () => {
    const pages: [string, string][] = [
      ["links", "/console/links"],
      ["link", `/console/links/${state.linkId}`],
      ["link-form", `/console/links/${state.linkId}/edit`],
      ["analytics", "/console/analytics"],
      ["keys", "/console/keys"],
      ["webhook", `/console/webhooks/${state.webhookId}`],
      ["team", "/console/team"],
      ["account", "/console/account"],
    ];
    await inEveryLook(browser, await owner.cookies(), unexpected, async (p, look) => {
      for (const [name, path] of pages) await checkPage(p, server.url + path, name, look);
    });
    expect(unexpected(errors)).toEqual([]);
  }, 180_000);
});
