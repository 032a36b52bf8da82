// Issue 30 item 2 in headless Chromium: the attribution card on the console's Analytics page, drawn by
// <svc-attribution controls> from conversions the test sent, switched from first to last click.
// Screenshot in test-artifacts/console/.
import { expect, test } from "bun:test";
import { asOwner, screenshot, useOwnerConsole } from "./console-setup";

const owner = useOwnerConsole();

const loaded = () =>
  owner.page.waitForFunction(() => ["loaded", "empty"].includes((document.getElementById("w-attribution") as any)?.state), undefined, {
    timeout: 20_000,
  });
const rows = () =>
  owner.page.evaluate(() => {
    const table = document.getElementById("w-attribution")!.shadowRoot!.querySelector("tbody");
    return [...table!.querySelectorAll("tr")].map((tr) => [...tr.children].map((c) => c.textContent?.trim()));
  });

test("the Analytics page credits a conversion to the first or the last link its visitor came through", async () => {
  const { t, server, page, errors } = owner;
  const link = async (code: string) => (await asOwner(page, "POST", "/links", { url: "https://example.com/", short_code: code })).body.data;
  const [first, last] = [await link(`first${Date.now()}`), await link(`last${Date.now()}`)];
  const at = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
  const ev = (linkId: string, h: number, extra: Record<string, unknown> = {}) => ({
    link_id: linkId,
    visitor_id: "v1",
    event_type: "page_view",
    page_url: "https://example.com/",
    timestamp: at(h),
    ...extra,
  });
  // v1 came through `first` two days ago and `last` yesterday, then bought for 25.00.
  const events = [ev(first.id, 48), ev(last.id, 24), ev(last.id, 2, { event_type: "conversion", revenue_cents: 2500, currency: "USD" })];
  expect((await asOwner(page, "POST", "/journey/events", { events })).status).toBe(202);
  await t.flush();

  await page.goto(`${server.url}/console/analytics`);
  await loaded();
  expect(await rows()).toEqual([[first.short_code, "1", "$25.00", "100%"]]);
  await page.locator("#w-attribution").locator('select[data-attr="model"]').selectOption("last");
  await page.waitForFunction(() => document.getElementById("w-attribution")?.getAttribute("model") === "last");
  await loaded();
  expect(await rows()).toEqual([[last.short_code, "1", "$25.00", "100%"]]);
  await screenshot(page.locator("#w-attribution"), "attribution");
  expect(errors).toEqual([]);
}, 90_000);
