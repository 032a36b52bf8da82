// The link features of issue 20 in the console, in headless Chromium against our real server: a link with
// two targeting rules, two A/B variants and a click limit made in the form (the API's field errors beside
// the fields they name, nothing created until they are fixed), followed from browsers whose language or
// device match a rule; its QR code previewed, refused with too little contrast, downloaded as PNG and SVG,
// decoded by jsQR and followed; a logo uploaded and removed; the numbers per variant, rule and source on
// its page, and the limit reached after an edit; a viewer who sees all of it and can change none of it.
// Screenshots of the new parts go to test-artifacts/console/ (docs/console/ with UPDATE_DOCS_SCREENSHOT=1).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import jsQR from "jsqr";
import type { Browser, BrowserContext, Page } from "playwright-core";
import sharp from "sharp";
import type { TestApp } from "../helpers/app";
import { launchBrowser, watchErrors } from "./browser";
import {
  ownerPage,
  checkPage,
  inEveryLook,
  HUMAN_UA,
  invalid,
  IPHONE_UA,
  PASSWORD,
  screenshot,
  settled,
  shows,
  startConsoleServer,
} from "./console-setup";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let site: ReturnType<typeof Bun.serve>;
let browser: Browser;
let owner: BrowserContext;
let page: Page;
let errors: string[];
const state: { id?: string; shortUrl?: string } = {};
/** Where the visits landed: the destination's path → how many. */
const landed = new Map<string, number>();
const land = (url: string) => {
  const path = new URL(url).pathname;
  landed.set(path, (landed.get(path) ?? 0) + 1);
};
const to = (path: string) => `http://127.0.0.1:${site.port}${path}`;

/** The browser logs a failed load for answers we provoke (400 of the form, 403 of the viewer). */
const unexpected = (errs: string[]) => errs.filter((e) => !/status of (400|401|403|404)/.test(e));

beforeAll(async () => {
  ({ t, ...server } = await startConsoleServer({ WEBHOOK_ALLOW_INSECURE: "true" }));
  // The destinations: a site on another loopback port whose every page names its path.
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/favicon.ico") return new Response(null, { status: 204 });
      return new Response(`<!doctype html><title>${path}</title><h1>${path}</h1>`, { headers: { "content-type": "text/html" } });
    },
  });
  browser = await launchBrowser();
  ({ context: owner, page, errors } = await ownerPage(browser, t, { width: 1440, height: 900, colorScheme: "light" }));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  await server?.stop();
  await t?.close();
});

/** The text of the QR code in an image (PNG or SVG), decoded by jsQR; null when it finds none. */
async function decode(bytes: Uint8Array) {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height)?.data ?? null;
}

/** Clicks a download link of the page and returns the bytes it downloaded. */
async function download(p: Page, name: string): Promise<Uint8Array> {
  const [file] = await Promise.all([p.waitForEvent("download"), p.getByRole("link", { name }).click()]);
  return new Uint8Array(readFileSync((await file.path())!));
}

/** A new browser (no cookies) with this language and user agent opens `url`; where it lands. */
async function visit(url: string, opts: { locale: string; userAgent: string; isMobile?: boolean }) {
  const ctx = await browser.newContext({ ...opts, viewport: opts.isMobile ? { width: 390, height: 844 } : undefined });
  const p = await ctx.newPage();
  await p.goto(url);
  const at = p.url();
  await ctx.close();
  return at;
}

/** The rows of one of the link page's group tables: the first cell → the Clicks cell. */
const groupRows = (p: Page, group: string) =>
  p.$$eval(`#groups-${group} tbody tr`, (trs) =>
    Object.fromEntries(
      trs.map((tr) => [tr.querySelector("th")!.textContent!.trim(), tr.querySelector('td[data-label="Clicks"]')!.textContent!.trim()]),
    ),
  );

const linkCount = (p: Page) => p.evaluate(async () => (await (await fetch("/public-api/v1/links")).json()).meta.total as number);

describe("the link features in the console", () => {
  test("creates a link with two rules, two variants and a click limit; field errors show beside their fields", async () => {
    await page.getByRole("link", { name: "New link", exact: true }).click();
    await page.getByLabel("Destination URL").fill(to("/default"));
    await page.getByLabel("Title", { exact: true }).fill("Spring sale");
    await page.getByLabel("Click limit", { exact: true }).fill("30");
    await page.getByLabel("After the limit, send visitors to").fill(to("/limit-reached"));

    // Two rules: a German-speaking browser, and (first typed with an unknown country) a phone.
    await page.getByRole("button", { name: "Add a rule" }).click();
    const rules = page.locator("#rules > li");
    // Focus moves into the new rule (an effect, after the render).
    await page.waitForFunction(() => document.activeElement?.closest("li")?.id?.startsWith("rule-"));
    await rules.nth(0).getByLabel("Languages").fill("de");
    await rules.nth(0).getByLabel("Then send visitors to").fill(to("/de"));
    await page.getByRole("button", { name: "Add a rule" }).click();
    await rules.nth(1).getByLabel("Countries").fill("ZZ");
    await rules.nth(1).getByLabel("mobile").check();
    await rules.nth(1).getByLabel("Then send visitors to").fill(to("/mobile"));

    // Reordering with the keyboard: focus follows the rule, and the change is announced.
    await rules.nth(1).getByRole("button", { name: "Move up rule 2" }).focus();
    await page.keyboard.press("Enter");
    // Focus lands on an enabled button of the moved rule (an effect, after the render that moved it).
    const focusedIn = (n: number) =>
      page.waitForFunction((n) => {
        const el = document.activeElement as HTMLButtonElement | null;
        return !!el && !el.disabled && el.closest("li") === document.querySelector(`#rules > li:nth-child(${n})`);
      }, n);
    await focusedIn(1);
    expect(await rules.nth(0).getByLabel("Countries").inputValue()).toBe("ZZ");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Move down rule 1");
    await expect(page.locator("#rules ~ .status").textContent()).resolves.toBe("Rule 2 moved to position 1");
    await page.keyboard.press("Enter");
    await focusedIn(2);
    expect(await rules.nth(1).getByLabel("Countries").inputValue()).toBe("ZZ");

    // Two variants, split evenly, then weights that do not add up: the error is shown as they are typed.
    await page.getByRole("button", { name: "Add a variant" }).click();
    const variants = page.locator("#variants > li");
    expect(await variants.count()).toBe(2);
    expect(await variants.nth(0).getByLabel("Weight (%)").inputValue()).toBe("50");
    await variants.nth(0).getByLabel("Variant URL").fill(to("/a"));
    await variants.nth(1).getByLabel("Variant URL").fill(to("/b"));
    await variants.nth(0).getByLabel("Weight (%)").fill("60");
    await expect(page.locator("#variants-total").textContent()).resolves.toBe("The weights add up to 110%; they must add up to 100%.");
    await variants.nth(1).getByLabel("Weight (%)").fill("40");
    await expect(page.locator("#variants-total").textContent()).resolves.toBe("The weights add up to 100%.");

    // The API refuses the unknown country, naming it; the console shows it beside rule 2's countries.
    await page.getByRole("button", { name: "Create link" }).click();
    const countries = rules.nth(1).getByLabel("Countries");
    await invalid(countries);
    const describedBy = (await countries.getAttribute("aria-describedby"))!.split(" ");
    const message = await page.locator(`[id="${describedBy.at(-1)}"]`).textContent();
    expect(message).toContain('"ZZ" is not an ISO 3166-1 alpha-2 country code');
    await shows(page.getByRole("alert"), "Please check: Rule 2, country 1:");
    expect(await linkCount(page)).toBe(0);
    await screenshot(page.locator("form"), "link-form-error-desktop-light");

    await countries.fill("");
    await page.getByRole("button", { name: "Create link" }).click();
    await page.waitForURL(/\/console\/links\/[0-9a-f-]{36}$/);
    state.id = page.url().split("/").pop();
    state.shortUrl = (await page.locator("dl.details a").first().getAttribute("href"))!;
    await expect(page.locator("#click-limit").textContent()).resolves.toContain("0 of 30 people's clicks counted");
    expect(await page.locator("[aria-labelledby=link-rules] li").allTextContents()).toEqual([
      `Language de → ${to("/de")}`,
      `Device mobile → ${to("/mobile")}`,
    ]);
    expect(await page.locator("[aria-labelledby=link-variants] li").allTextContents()).toEqual([`${to("/a")} 60%`, `${to("/b")} 40%`]);
    expect(await linkCount(page)).toBe(1);
  }, 120_000);

  test("browsers whose language or device match a rule land on its destination; others on a sticky variant", async () => {
    const de = await visit(state.shortUrl!, { locale: "de-DE", userAgent: HUMAN_UA });
    expect(de).toBe(to("/de"));
    land(de);
    const phone = await visit(state.shortUrl!, { locale: "en-US", userAgent: IPHONE_UA, isMobile: true });
    expect(phone).toBe(to("/mobile"));
    land(phone);

    // A desktop browser in English gets a variant, and the same one again (the cookie of the short link).
    const ctx = await browser.newContext({ locale: "en-US", userAgent: HUMAN_UA });
    const p = await ctx.newPage();
    await p.goto(state.shortUrl!);
    const first = p.url();
    expect([to("/a"), to("/b")]).toContain(first);
    await p.goto(state.shortUrl!);
    expect(p.url()).toBe(first);
    land(first);
    land(first);
    await ctx.close();

    // New visitors without a cookie: each draw lands on one of the two.
    for (let i = 0; i < 10; i++) {
      const res = await fetch(state.shortUrl!, { redirect: "manual", headers: { "user-agent": HUMAN_UA, "accept-language": "en" } });
      expect(res.status).toBe(302);
      land(res.headers.get("location")!);
    }
    expect((landed.get("/a") ?? 0) + (landed.get("/b") ?? 0)).toBe(12);
  }, 120_000);

  test("the QR code: preview, contrast refusal beside the colour, PNG and SVG downloads that scan to the link", async () => {
    await page.reload();
    const image = page.locator("#qr-image");
    await image.waitFor();
    expect(await image.getAttribute("src")).toMatch(/^blob:/);
    expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);

    // Too little contrast: refused by the API, the reason beside the foreground colour, nothing to download.
    await page.getByLabel("Foreground colour").fill("#777777");
    await page.getByLabel("Background colour").fill("#888888");
    const fg = page.getByLabel("Foreground colour");
    await invalid(fg);
    const reason = await page.locator(`[id="${(await fg.getAttribute("aria-describedby"))!}"]`).textContent();
    expect(reason).toContain("contrast with bg is 1.");
    expect(await page.getByRole("link", { name: "Download PNG" }).count()).toBe(0);
    await screenshot(page.locator("section[aria-labelledby=qr-code]"), "link-qr-refused-desktop-light");
    await page.getByRole("button", { name: "Reset the options" }).click();
    await image.waitFor();

    const png = await download(page, "Download PNG");
    expect(await decode(png)).toBe(`${state.shortUrl}?qr=1`);
    const svg = await download(page, "Download SVG");
    expect(new TextDecoder().decode(svg)).toStartWith("<svg");
    expect(await decode(svg)).toBe(`${state.shortUrl}?qr=1`);

    // Scanned: the phone's browser opens the decoded address and lands on a destination (a variant: no rule matches).
    const scanned = await visit((await decode(png))!, { locale: "en-US", userAgent: HUMAN_UA });
    expect([to("/a"), to("/b")]).toContain(scanned);
    land(scanned);

    // A logo (the account is on the scale tier): uploaded, drawn in the middle, still scans; then removed.
    const logo = await sharp({ create: { width: 96, height: 96, channels: 3, background: "#d62424" } })
      .png()
      .toBuffer();
    await page.getByLabel(/Upload a logo/).setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logo });
    await page.getByText("Logo uploaded").waitFor();
    await expect(page.getByLabel("Logo in the middle").isChecked()).resolves.toBe(true);
    await settled(page);
    expect(await decode(await download(page, "Download PNG"))).toBe(`${state.shortUrl}?qr=1`);
    await page.getByRole("button", { name: "Remove the logo" }).click();
    await page.getByText("Logo removed").waitFor();
    // The link is read again: its logo is gone, and with it the choice to draw it.
    await page.getByLabel("Logo in the middle").waitFor({ state: "detached" });
    expect(await page.evaluate(async (id) => (await (await fetch(`/public-api/v1/links/${id}`)).json()).data.qr_logo, state.id)).toBeNull();
    expect(unexpected(errors)).toEqual([]);
  }, 120_000);

  test("the link's page shows the numbers per variant, rule and source, and the limit once reached", async () => {
    await t.flush();
    await t.runtime.deps.clickLimits.settle();
    await page.reload();
    await page.locator("#groups-variant").waitFor();
    expect(await groupRows(page, "variant")).toEqual({
      [`${to("/a")} 60%`]: String(landed.get("/a") ?? 0),
      [`${to("/b")} 40%`]: String(landed.get("/b") ?? 0),
    });
    expect(await groupRows(page, "rule")).toEqual({ [`Rule 1 ${to("/de")}`]: "1", [`Rule 2 ${to("/mobile")}`]: "1" });
    expect(await groupRows(page, "source")).toEqual({ Link: "14", "QR code": "1" });
    await expect(page.locator("#groups-source caption").textContent()).resolves.toBe(
      "Visitors are counted once per UTC day: no stored identifier crosses days.",
    );
    await expect(page.locator("#click-limit").textContent()).resolves.toContain("15 of 30 people's clicks counted");

    // Lowered to what it has counted, the limit is reached: the next visitor goes to the fallback.
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByLabel("Click limit", { exact: true }).fill("15");
    await expect(page.locator("#counted-clicks").textContent()).resolves.toContain("Counted so far: 15 of 30");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.waitForURL(new RegExp(`/console/links/${state.id}$`));
    await shows(page.locator("#click-limit"), "15 of 15 people's clicks counted Reached");
    const after = await fetch(state.shortUrl!, { redirect: "manual", headers: { "user-agent": HUMAN_UA } });
    expect(after.headers.get("location")).toBe(to("/limit-reached"));
    expect(unexpected(errors)).toEqual([]);
  }, 120_000);

  test("a viewer sees the rules, variants, QR code and numbers, and can change none of them", async () => {
    const session = await page.evaluate(async () => (await (await fetch("/console/api/session")).json()).data);
    const invited = await t.admin("POST", `/accounts/${session.account.id}/invitations`, { role: "viewer", email: "viewer@example.com" });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
    const viewer = await ctx.newPage();
    const viewerErrors = watchErrors(viewer);
    await viewer.goto(invited.body.data.invitation_url);
    await viewer.getByLabel("Password").fill(PASSWORD);
    await viewer.getByRole("button", { name: "Accept the invitation" }).click();
    await viewer.waitForURL(/\/console\/links$/);

    await viewer.goto(`${server.url}/console/links/${state.id}`);
    await viewer.locator("#groups-variant").waitFor();
    expect(await viewer.locator("[aria-labelledby=link-rules] li").count()).toBe(2);
    expect(await groupRows(viewer, "variant")).toEqual(await groupRows(page, "variant"));
    await viewer.locator("#qr-image").waitFor();
    expect(await decode(await download(viewer, "Download PNG"))).toBe(`${state.shortUrl}?qr=1`);
    expect(await viewer.getByRole("link", { name: "Edit" }).count()).toBe(0);
    expect(await viewer.getByLabel(/Upload a logo/).count()).toBe(0);

    // The edit page offers no form that could only fail; trying anyway, the API refuses the change and
    // the logo upload, and nothing changes.
    await viewer.goto(`${server.url}/console/links/${state.id}/edit`);
    await shows(viewer.locator(".not-allowed"), "Your role (viewer) can't change links.");
    expect(await viewer.getByRole("button", { name: "Save changes" }).count()).toBe(0);
    const [patched, upload] = await viewer.evaluate(async (id) => {
      const s = (await (await fetch("/console/api/session")).json()).data;
      const write = (method: string, path: string, type: string, body: BodyInit) =>
        fetch(`/public-api/v1/links/${id}${path}`, { method, headers: { "x-csrf-token": s.csrf_token, "content-type": type }, body }).then(
          (r) => r.status,
        );
      return [
        await write("PATCH", "", "application/json", JSON.stringify({ max_clicks: 1000 })),
        await write("PUT", "/qr-logo", "image/png", new Uint8Array([137, 80, 78, 71])),
      ];
    }, state.id);
    expect([patched, upload]).toEqual([403, 403]);
    const link = await page.evaluate(async (id) => (await (await fetch(`/public-api/v1/links/${id}`)).json()).data, state.id);
    expect([link.max_clicks, link.qr_logo, link.rules.length, link.variants.length]).toEqual([15, null, 2, 2]);
    expect(unexpected(viewerErrors)).toEqual([]);
    await ctx.close();
  }, 120_000);

  test("the new parts: labelled controls, light and dark, desktop and phone; screenshots", async () => {
    await inEveryLook(browser, await owner.cookies(), unexpected, async (p, look) => {
      await checkPage(p, `${server.url}/console/links/${state.id}`, "link-targeting", look);
      await checkPage(p, `${server.url}/console/links/${state.id}/edit`, "link-form-targeting", look);
      // At phone width, each new part on its own (a whole page would be several screens long).
      if (look.device === "phone") {
        await screenshot(p.locator("fieldset.wide").first(), `link-form-rules-phone-${look.scheme}`);
        await p.goto(`${server.url}/console/links/${state.id}`);
        await settled(p);
        await screenshot(p.locator("section[aria-labelledby=qr-code]"), `link-qr-phone-${look.scheme}`);
        await screenshot(p.locator("section[aria-labelledby=group-stats]"), `link-groups-phone-${look.scheme}`);
      }
    });
  }, 180_000);
});
