// Issue 25's last defects in headless Chromium: the link form names a reserved alias before sending it,
// the team page gives a pending invitation a new link to copy, /dashboard works on the console session
// and says its error once, and members see no form that can only fail with 403.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { TestApp } from "../helpers/app";
import { launchBrowser, watchErrors } from "./browser";
import { asOwner as ownerApi, ownerPage, screenshot, startConsoleServer } from "./console-setup";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  ({ t, ...server } = await startConsoleServer());
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

describe("reserved aliases", () => {
  test("the new-link and edit forms name a reserved alias beside the field and do not send it", async () => {
    const writes: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => {
      if (r.method() === "POST" || r.method() === "PATCH") writes.push(new URL(r.url()).pathname);
    };
    page.on("request", onRequest);
    await page.goto(`${server.url}/console/links/new`);
    await page.getByLabel("Destination URL").fill("https://example.com/reserved");
    const alias = page.getByLabel("Custom alias");
    await alias.fill("Dashboard");
    // Said as it is typed, before any submit.
    await page.locator(".field-error").filter({ hasText: '"Dashboard" is reserved' }).waitFor();
    expect(await alias.getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "followups-reserved-alias");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.getByRole("alert").filter({ hasText: "Custom alias:" }).first().waitFor();
    // A malformed alias is named on submit too.
    await alias.fill("a b");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.locator(".field-error").filter({ hasText: "must be 3 to 64 characters" }).waitFor();

    const created = await asOwner("POST", "/links", { url: "https://example.com/edit-me" });
    expect(created.status).toBe(201);
    writes.length = 0;
    await page.goto(`${server.url}/console/links/${created.body.data.id}/edit`);
    await page.getByLabel("Custom alias").fill("admin");
    await page.locator(".field-error").filter({ hasText: '"admin" is reserved' }).waitFor();
    await page.getByRole("button", { name: /Save/ }).click();
    await page.getByRole("alert").filter({ hasText: "Custom alias:" }).first().waitFor();
    page.off("request", onRequest);
    expect(writes.filter((p) => p.includes("/links"))).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe("invitations", () => {
  /** What the accept page would offer for a link's token: 200 while it works. */
  const preview = (url: string) =>
    fetch(`${server.url}/console/api/auth/invitation`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ token: new URL(url).hash.slice(1) }),
    }).then((r) => r.status);

  test("a pending invitation gets a new link to copy; the earlier link stops working", async () => {
    await page.goto(`${server.url}/console/team`);
    await page.getByLabel("Email").fill("late@example.com");
    await page.getByRole("button", { name: "Invite" }).click();
    const first = (await page.locator("#invitation-url").textContent())!;
    expect(await preview(first)).toBe(200);
    // Later, on another visit, the link is no longer on the page: a new one can be made.
    await page.reload();
    const renew = page.getByRole("button", { name: "New link for late@example.com" });
    await renew.click();
    const box = page.locator("#renewed-invitation-url");
    await box.waitFor();
    const second = (await box.textContent())!;
    expect(second).not.toBe(first);
    expect(await page.locator("section[aria-labelledby=pending] .secret").getByRole("button", { name: "Copy link" }).count()).toBe(1);
    await screenshot(page, "followups-invitation-new-link");
    expect(await preview(second)).toBe(200);
    expect(await preview(first)).not.toBe(200);
    // Still one open invitation for that address.
    expect(await page.locator("section[aria-labelledby=pending] li").filter({ hasText: "late@example.com" }).count()).toBe(1);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe("/dashboard", () => {
  const widgetsSettled = (p: Page) =>
    p.waitForFunction(
      () => {
        const all = [...document.querySelectorAll("#widgets > *")] as any[];
        return all.length === 10 && all.every((w) => w.state === "loaded" || w.state === "empty");
      },
      undefined,
      { timeout: 20_000 },
    );

  test("a signed-in console user sees their account's widgets without pasting a key", async () => {
    await page.goto(`${server.url}/dashboard`);
    await page.locator("#status").filter({ hasText: "Signed in to the console as owner@example.com" }).waitFor();
    await widgetsSettled(page);
    // The account's links to pick from, listed with the session.
    expect(await page.locator("#link option").count()).toBeGreaterThan(1);
    expect(await page.evaluate(() => localStorage.getItem("svc-dashboard:key"))).toBeNull();
    await screenshot(page, "followups-dashboard-session", true);
    expect(errors).toEqual([]);
  }, 60_000);

  test("a refused key is said once, not again by every widget", async () => {
    await page.getByLabel("API key").fill(`svc_${"a".repeat(28)}`);
    await page.getByRole("button", { name: "Save key" }).click();
    await page.locator("#status").filter({ hasText: "Unknown or revoked API key" }).waitFor();
    expect(await page.locator("#widgets > *").count()).toBe(0);
    const text = await page.evaluate(() => document.body.innerText);
    expect(text.split("revoked").length - 1).toBe(1);
    await page.evaluate(() => localStorage.removeItem("svc-dashboard:key"));
  }, 60_000);

  test("signed out, it asks for a key and logs no error", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const other = await ctx.newPage();
    const logged = watchErrors(other);
    await other.goto(`${server.url}/dashboard`);
    await other.locator("#status").filter({ hasText: "Paste a read-only API key" }).waitFor();
    await other.waitForLoadState("networkidle");
    expect(await other.locator("#status").textContent()).toContain("Paste a read-only API key");
    expect(logged).toEqual([]);
    await ctx.close();
  }, 60_000);
});

describe("what a viewer is offered", () => {
  test("no link form that can only fail with 403, and no pointer to a keys page they cannot use", async () => {
    const session = await page.evaluate(async () => (await (await fetch("/console/api/session")).json()).data);
    const link = await asOwner("POST", "/links", { url: "https://example.com/for-viewer" });
    const invited = await t.admin("POST", `/accounts/${session.account.id}/invitations`, { role: "viewer", email: "viewer@example.com" });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    const viewer = await ctx.newPage();
    await viewer.goto(invited.body.data.invitation_url);
    await viewer.getByLabel("Password").fill("correct horse battery");
    await viewer.getByRole("button", { name: "Accept the invitation" }).click();
    await viewer.waitForURL(/\/console\/links$/);

    await viewer.goto(`${server.url}/console/links/new`);
    await viewer.locator(".not-allowed").filter({ hasText: "Your role (viewer) can't create links." }).waitFor();
    expect(await viewer.getByRole("button", { name: "Create link" }).count()).toBe(0);
    expect(await viewer.locator("main input").count()).toBe(0);
    await viewer.goto(`${server.url}/console/links/${link.body.data.id}/edit`);
    await viewer.locator(".not-allowed").filter({ hasText: "Your role (viewer) can't change links." }).waitFor();
    expect(await viewer.getByRole("button", { name: "Save changes" }).count()).toBe(0);
    await screenshot(viewer, "followups-viewer-link-form");

    // The tracker snippet on the link's page says who makes the key, not "API keys page".
    await viewer.goto(`${server.url}/console/links/${link.body.data.id}`);
    const hint = viewer.locator("p").filter({ hasText: "journey:write scope" }).first();
    await hint.waitFor();
    expect(await hint.textContent()).toContain("an owner or admin of this account makes it");
    expect(await hint.textContent()).not.toContain("API keys page");
    await ctx.close();
  }, 60_000);
});
