// The reference page (/public-api/v1/docs) in headless Chromium, used as a person would: it renders
// the public API from our own process (no request leaves the origin), and "Authorize" plus
// "Try it out" on GET /links sends a real call with the key and shows its answer.
// Writes test-artifacts/api-reference.png.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { launchBrowser, watchErrors } from "./browser";

const ARTIFACTS = join(import.meta.dir, "..", "..", "test-artifacts");
let t: TestApp;
let server: ReturnType<typeof listen>;
let browser: Browser;
let key: string;
let shortCode: string;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await createTestApp();
  ({ key } = await t.createAccount({ tier: "scale" }));
  const link = await t.call("/public-api/v1/links", {
    method: "POST",
    key,
    json: { url: "https://example.com/docs-test", title: "T", description: "D" },
  });
  shortCode = link.body.data.short_code;
  server = listen(t);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
});

test("renders every tag from our origin and sends a real call with the key", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = watchErrors(page);
  const origins = new Set<string>();
  page.on("request", (r) => origins.add(new URL(r.url()).origin));
  await page.goto(`${server.url}/public-api/v1/docs`);
  await page.getByRole("heading", { name: /svc public API/ }).waitFor({ timeout: 30_000 });
  for (const tag of ["Links", "Analytics", "Journey", "Conversions", "Webhooks", "Domains", "Campaigns"])
    await expect(page.locator(`.opblock-tag[data-tag="${tag}"]`).count()).resolves.toBe(1);
  await expect(page.locator(".opblock").count()).resolves.toBeGreaterThanOrEqual(42);

  // Authorize: the key goes into the X-API-Key scheme, then every "Try it out" call carries it.
  await page.locator(".auth-wrapper button.authorize").click();
  await page.locator(".modal-ux input").first().fill(key);
  await page.locator(".modal-ux button.authorize").click();
  await page.locator(".modal-ux button.btn-done").click();

  const list = page.locator("#operations-Links-listLinks");
  await list.locator(".opblock-summary").click();
  await list.locator("button.try-out__btn").click();
  await list.locator("button.execute").click();
  const live = list.locator(".live-responses-table");
  await live.waitFor({ timeout: 30_000 });
  const answer = live.locator("tr.response");
  await expect(answer.locator(".response-col_status").textContent()).resolves.toContain("200");
  await expect(answer.locator(".response-col_description").textContent()).resolves.toContain(shortCode);

  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, "api-reference.png"), fullPage: false });
  expect([...origins]).toEqual([server.url]);
  expect(errors).toEqual([]);
}, 120_000);
