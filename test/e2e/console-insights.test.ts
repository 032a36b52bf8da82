// Issue 30 in headless Chromium: a link's paths and retention on its console page, drawn by the widgets
// from the events the test sent, with a comparison chosen once for both. Screenshot in test-artifacts/console/.
import { expect, test } from "bun:test";
import { asOwner, screenshot, useOwnerConsole } from "./console-setup";

const owner = useOwnerConsole();

const loadedWidget = (id: string) =>
  owner.page.waitForFunction((id) => ["loaded", "empty"].includes((document.getElementById(id) as any)?.state), id, { timeout: 20_000 });
/** Rows of a widget's table by caption, read through its shadow root. */
const widgetTable = (id: string, caption: string) =>
  owner.page.evaluate(
    ({ id, caption }) => {
      const t = [...document.getElementById(id)!.shadowRoot!.querySelectorAll("table")].find((x) => x.caption?.textContent === caption);
      return t ? [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent?.trim())) : null;
    },
    { id, caption },
  );

test("a link's page shows where its visitors went from a page, what led to a purchase, and who came back", async () => {
  const { t, server, page, errors } = owner;
  const created = await asOwner(page, "POST", "/links", { url: "https://example.com/shop", title: "Shop" });
  expect(created.status).toBe(201);
  const linkId = created.body.data.id;
  const at = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
  const ev = (visitor: string, m: number, extra: Record<string, unknown>) => ({
    link_id: linkId,
    visitor_id: visitor,
    session_id: `${visitor}-s`,
    event_type: "page_view",
    page_url: "https://example.com/",
    timestamp: at(m),
    ...extra,
  });
  // a: / → /pricing → purchase; b: / → /pricing (reloaded) then leaves; c: / only.
  const events = [
    ev("a", 30, {}),
    ev("a", 29, { page_url: "https://example.com/pricing" }),
    ev("a", 27, { event_type: "conversion", event_name: "purchase" }),
    ev("b", 20, {}),
    ev("b", 18, { page_url: "https://example.com/pricing" }),
    ev("b", 17, { page_url: "https://example.com/pricing" }),
    ev("c", 10, {}),
  ];
  expect((await asOwner(page, "POST", "/journey/events", { events })).status).toBe(202);
  await t.flush();

  await page.goto(`${server.url}/console/links/${linkId}`);
  await page.getByLabel("Event name, event type or page URL").fill("https://example.com/");
  await page.getByRole("button", { name: "Show paths" }).click();
  await page.waitForFunction(() => document.getElementById("w-paths")?.getAttribute("start") === "https://example.com/");
  await loadedWidget("w-paths");
  expect(await widgetTable("w-paths", "Path steps")).toEqual([
    ["Start", "https://example.com/", "3", "1"],
    ["Step 2", "https://example.com/pricing", "2", "1"],
    ["Step 3", "purchase", "1", "1"],
  ]);

  await page.getByLabel("Direction").selectOption("end");
  await page.getByLabel("Event name, event type or page URL").fill("purchase");
  await page.getByRole("button", { name: "Show paths" }).click();
  await page.waitForFunction(() => document.getElementById("w-paths")?.getAttribute("end") === "purchase");
  await loadedWidget("w-paths");
  expect(await page.getAttribute("#w-paths", "start")).toBeNull();
  expect(await widgetTable("w-paths", "Path steps")).toEqual([
    ["End", "purchase", "1", "0"],
    ["1 before", "https://example.com/pricing", "1", "0"],
    ["2 before", "https://example.com/", "1", "1"],
  ]);

  await loadedWidget("w-retention");
  const cohorts = await widgetTable("w-retention", "Retention counts");
  expect(cohorts?.length).toBe(8);
  expect(cohorts?.at(-1)?.[1]).toBe("3"); // this week's new visitors: a, b and c

  await page.getByLabel("Compare with").selectOption("previous");
  await page.waitForFunction(() => document.getElementById("w-retention")?.getAttribute("compare") === "previous");
  await loadedWidget("w-retention");
  await loadedWidget("w-paths");
  const note = await page.evaluate(() => document.getElementById("w-retention")!.shadowRoot!.querySelector("dd.note")?.textContent);
  expect(note).toBe("was 0 the previous period");
  await screenshot(page.locator("section[aria-labelledby=insights]"), "link-insights");
  expect(errors).toEqual([]);
}, 90_000);
