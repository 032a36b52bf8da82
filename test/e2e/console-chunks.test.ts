// How the console loads in headless Chromium: the first load fetches only the entry, the chunks it
// imports and the CSS (plus the page shown); each other page's chunk arrives when the page is first
// opened, under the page's CSP, cached as immutable, and its heading then gets focus. A chunk that
// fails to load says so and offers a reload, which works.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { TestApp } from "../helpers/app";
import { launchBrowser } from "./browser";
import { ownerPage, ROOT, startConsoleServer } from "./console-setup";

const manifest = JSON.parse(readFileSync(join(ROOT, "console/dist/manifest.json"), "utf8")) as {
  js: string;
  css: string;
  initial: string[];
  pages: string[];
};
const pageChunk = (name: string) => manifest.pages.find((p) => p.startsWith(`chunks/${name}-`))!;

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];
/** Every /console/assets/ file the page fetched, in order, with its answer's status and headers. */
const fetched: { file: string; status: number; type: string | null; cache: string | null }[] = [];

beforeAll(async () => {
  ({ t, ...server } = await startConsoleServer());
  browser = await launchBrowser();
  ({ context, page, errors } = await ownerPage(browser, t));
  page.on("response", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/console/assets/"))
      fetched.push({
        file: path.slice("/console/assets/".length),
        status: r.status(),
        type: r.headers()["content-type"] ?? null,
        cache: r.headers()["cache-control"] ?? null,
      });
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
});

const heading = (p: Page) => p.locator("main h1");

test("the first load is the entry, its chunks, the CSS and the page shown (asked for with the session); nothing else", async () => {
  // A new tab with an empty cache, signed in with the owner's cookie.
  const fresh = await browser.newContext({ storageState: await context.storageState() });
  const tab = await fresh.newPage();
  const seen: string[] = [];
  tab.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/console/assets/")) seen.push(path.slice("/console/assets/".length));
    if (path === "/console/api/session") seen.push("session");
  });
  const csp: string[] = [];
  tab.on("console", (m) => m.type() === "error" && csp.push(m.text()));
  await tab.goto(`${server.url}/console/links`);
  await heading(tab).filter({ hasText: "Links" }).waitFor();
  const list = pageChunk("list");
  expect(manifest.pages.filter((p) => seen.includes(p))).toEqual([list]); // of all pages, only the links list
  for (const f of [...manifest.initial, manifest.css, list]) expect(seen).toContain(f);
  // The shown page's chunk is asked for while the session loads, not after it.
  expect(seen.indexOf(list)).toBeLessThan(seen.indexOf("session"));
  expect(csp).toEqual([]);
  await fresh.close();
});

test("opening a page fetches its chunk once, immutable, and focuses its heading", async () => {
  await page.goto(`${server.url}/console/links`);
  await heading(page).filter({ hasText: "Links" }).waitFor();
  const alerts = pageChunk("alerts");
  // The chunk is held until the loading state shows, so the page surely arrives after its navigation.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(`**/console/assets/${alerts}`, async (r) => (await held, r.continue()));
  await page.getByRole("link", { name: "Reports and alerts" }).click();
  await page.getByRole("status").filter({ hasText: "Loading the page" }).waitFor();
  release();
  await heading(page).filter({ hasText: "Reports and alerts" }).waitFor();
  await page.unroute(`**/console/assets/${alerts}`);
  await page.waitForFunction(
    () => document.activeElement?.matches("main h1") && document.activeElement.textContent === "Reports and alerts",
  );
  expect(await page.title()).toBe("Reports and alerts · svc console");
  const got = fetched.filter((f) => f.file === alerts);
  expect(got).toEqual([
    { file: alerts, status: 200, type: "text/javascript; charset=utf-8", cache: "public, max-age=31536000, immutable" },
  ]);
  // Back and forth: the page module is already there, so no second fetch.
  await page.getByRole("link", { name: "Links", exact: true }).click();
  await heading(page).filter({ hasText: "Links" }).waitFor();
  await page.getByRole("link", { name: "Reports and alerts" }).click();
  await heading(page).filter({ hasText: "Reports and alerts" }).waitFor();
  expect(fetched.filter((f) => f.file === alerts)).toHaveLength(1);
  for (const f of fetched) expect(f.status === 200 || f.status === 304).toBe(true);
  expect(errors).toEqual([]);
});

test("a page whose chunk fails to load says so; reloading the console shows it", async () => {
  const imports = pageChunk("imports");
  await page.route(`**/console/assets/${imports}`, (r) => r.abort("connectionfailed"));
  await page.getByRole("link", { name: "Imports" }).click();
  await heading(page).filter({ hasText: "This page could not be loaded" }).waitFor();
  await page.waitForFunction(
    () => document.activeElement?.matches("main h1") && document.activeElement.textContent === "This page could not be loaded",
  );
  await page.unroute(`**/console/assets/${imports}`);
  await page.getByRole("button", { name: "Reload the console" }).click();
  await heading(page).filter({ hasText: "Imports" }).waitFor();
  expect(page.url()).toBe(`${server.url}/console/imports`);
});

test("a browser whose language Intl refuses (en-US@posix, as under a POSIX locale) still gets the console", async () => {
  const posix = await browser.newContext({ storageState: await context.storageState(), locale: "en-US@posix" });
  const tab = await posix.newPage();
  const failures: string[] = [];
  tab.on("pageerror", (e) => failures.push(e.message));
  await tab.goto(`${server.url}/console/links`);
  expect(await tab.evaluate(() => navigator.language)).toBe("en-US@posix");
  await heading(tab).filter({ hasText: "Links" }).waitFor();
  expect(failures).toEqual([]);
  await posix.close();
});
