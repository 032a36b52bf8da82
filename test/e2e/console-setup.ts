// What the console's browser tests share: our server listening on BASE_URL's own port (so short links,
// uploaded images and the setup link work as printed), the owner made through the setup link, and the
// checks every page passes (labelled controls, nothing wider than the screen) before its screenshot.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "bun:test";
import type { Browser, Cookie, Locator, Page } from "playwright-core";
import { serveApp } from "../../server/serve";
import { createTestApp, type TestApp } from "../helpers/app";
import { firstOwnerLink } from "../helpers/console";
import { launchBrowser, watchErrors } from "./browser";

export const ROOT = join(import.meta.dir, "..", "..");
export const SHOTS = join(ROOT, "test-artifacts", "console");
export const PASSWORD = "correct horse battery";
export const HUMAN_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
export const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

export async function startConsoleServer(
  env: Record<string, string> = {},
  overrides: Parameters<typeof createTestApp>[2] = undefined,
): Promise<{ t: TestApp; url: string; stop(): Promise<void> }> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  const url = `http://127.0.0.1:${port}`;
  const t = await createTestApp({}, { BASE_URL: url, ...env }, overrides);
  const bun = serveApp(t.runtime, { port, hostname: "127.0.0.1" });
  return { t, url, stop: () => bun.stop() };
}

/** Follows the first owner's setup link and becomes the owner of the `default` account. */
export async function becomeOwner(page: Page, t: TestApp, email = "owner@example.com") {
  await page.goto(await firstOwnerLink(t));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create the owner" }).click();
  await page.waitForURL(/\/console\/links$/);
}

/**
 * A new browser context (the look given, en-US, UTC) whose page has become the owner; its errors are
 * watched and its dialogs accepted.
 */
export async function ownerPage(
  browser: Browser,
  t: TestApp,
  look: { width: number; height: number; colorScheme: "light" | "dark" } = { width: 1280, height: 900, colorScheme: "dark" },
) {
  const context = await browser.newContext({
    viewport: { width: look.width, height: look.height },
    locale: "en-US",
    timezoneId: "UTC",
    colorScheme: look.colorScheme,
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  page.on("dialog", (d) => void d.accept());
  await becomeOwner(page, t);
  return { context, page, errors };
}

export interface OwnerConsole {
  t: TestApp;
  server: { url: string; stop(): Promise<void> };
  browser: Browser;
  page: Page;
  errors: string[];
}

/**
 * A console test file's usual set-up: our server, a browser and the owner's page, opened before the
 * file's tests and closed after them. The fields are filled in by the time a test runs.
 */
export function useOwnerConsole(): OwnerConsole {
  const owner = {} as OwnerConsole;
  beforeAll(async () => {
    const { t, ...server } = await startConsoleServer();
    Object.assign(owner, { t, server, browser: await launchBrowser() });
    Object.assign(owner, await ownerPage(owner.browser, t));
  }, 120_000);
  afterAll(async () => {
    await owner.browser?.close();
    await owner.server?.stop();
    await owner.t?.close();
  });
  return owner;
}

/** A public API call with the page's console session (cookie and CSRF token), as the console makes it. */
export async function asOwner(page: Page, method: string, path: string, json?: unknown) {
  return page.evaluate(
    async ({ method, path, json }) => {
      const session = await (await fetch("/console/api/session")).json();
      const res = await fetch(`/public-api/v1${path}`, {
        method,
        headers: { "content-type": "application/json", "x-csrf-token": session.data.csrf_token },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: res.status, body: await res.json() };
    },
    { method, path, json },
  );
}

/** Form controls with no accessible name: every input, select and textarea must have a label. */
export const unlabelled = (p: Page) =>
  p.$$eval("main input, main select, main textarea, header select", (els) =>
    els.filter((e) => !(e as HTMLInputElement).labels?.length && !e.getAttribute("aria-label")).map((e) => e.outerHTML.slice(0, 80)),
  );

/** Waits until nothing on the page is loading (sections and widgets). */
export const settled = (p: Page) =>
  p.waitForFunction(
    () =>
      !document.querySelector("[aria-busy=true]") &&
      [...document.querySelectorAll("svc-summary, svc-timeseries, svc-breakdown, svc-link-stats, svc-conversions, svc-attribution")].every(
        (w: any) => w.state !== "loading" && w.state !== "idle",
      ),
    undefined,
    { timeout: 20_000 },
  );

/** Saves `test-artifacts/console/<name>.png`, and copies it to docs/console/ with UPDATE_DOCS_SCREENSHOT=1. */
export async function screenshot(
  target: { screenshot(o: { path: string; fullPage?: boolean }): Promise<unknown> },
  name: string,
  fullPage = false,
) {
  mkdirSync(SHOTS, { recursive: true });
  const file = join(SHOTS, `${name}.png`);
  await target.screenshot({ path: file, ...(fullPage ? { fullPage } : {}) });
  if (process.env.UPDATE_DOCS_SCREENSHOT) {
    mkdirSync(join(ROOT, "docs", "console"), { recursive: true });
    copyFileSync(file, join(ROOT, "docs", "console", `${name}.png`));
  }
}

export const VIEWPORTS = [
  ["desktop", { width: 1440, height: 900 }],
  ["phone", { width: 390, height: 844 }],
] as const;

/** Waits until the control is marked invalid (the API's answer arrives after the click that sent it). */
export const invalid = (control: Locator) => control.and(control.page().locator("[aria-invalid=true]")).waitFor();

/** Waits until one of the elements shows this text (live regions exist empty before they say anything). */
export const shows = (l: Locator, text: string) => l.filter({ hasText: text }).first().waitFor();

export type Look = { device: (typeof VIEWPORTS)[number][0]; scheme: "light" | "dark" };

/**
 * For each colour scheme and viewport, a new browser context signed in with `cookies` runs `visit`; the
 * page may log no error that `unexpected` keeps.
 */
export async function inEveryLook(
  browser: Browser,
  cookies: Cookie[],
  unexpected: (errors: string[]) => string[],
  visit: (p: Page, look: Look) => Promise<void>,
) {
  for (const scheme of ["light", "dark"] as const) {
    for (const [device, viewport] of VIEWPORTS) {
      const ctx = await browser.newContext({
        viewport,
        colorScheme: scheme,
        locale: "en-US",
        timezoneId: "UTC",
        isMobile: device === "phone",
      });
      await ctx.addCookies(cookies);
      const p = await ctx.newPage();
      const errors = watchErrors(p);
      await visit(p, { device, scheme });
      expect(unexpected(errors)).toEqual([]);
      await ctx.close();
    }
  }
}

/** Opens a console page, waits until it has loaded, checks its labels, theme and width, and screenshots it as `<name>-<device>-<scheme>`. */
export async function checkPage(p: Page, url: string, name: string, { device, scheme }: Look) {
  await p.goto(url);
  await p.locator("main h1").waitFor();
  await settled(p);
  expect(await unlabelled(p)).toEqual([]);
  expect(await p.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
  // Nothing is wider than the screen.
  expect(await p.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1)).toBe(true);
  await screenshot(p, `${name}-${device}-${scheme}`, device === "desktop");
}
