// Issue 30 item 3 in headless Chromium: a link's console page shows its journey visitors of the last
// 5 minutes, and the figure moves on its own when a new visitor arrives (the widget polls every 10 s).
import { expect, test } from "bun:test";
import { asOwner, screenshot, useOwnerConsole } from "./console-setup";

const owner = useOwnerConsole();

/** A headline figure of a widget, by its label, read through its shadow root. */
const figure = (id: string, label: string) =>
  owner.page.evaluate(
    ({ id, label }) => {
      const dt = [...(document.getElementById(id)?.shadowRoot?.querySelectorAll("dt") ?? [])].find((d) => d.textContent === label);
      return dt?.nextElementSibling?.textContent ?? null;
    },
    { id, label },
  );

test("a link's page counts its visitors of the last 5 minutes and updates itself", async () => {
  const { server, page, errors } = owner;
  const created = await asOwner(page, "POST", "/links", { url: "https://example.com/live", title: "Live" });
  const linkId = created.body.data.id;
  const ev = (visitor: string, minutesAgo: number) => ({
    link_id: linkId,
    visitor_id: visitor,
    event_type: "page_view",
    page_url: "https://example.com/",
    timestamp: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
  });
  // a twice (two minutes), b once, c 20 minutes ago (in the 30 minutes, not the 5).
  const sent = [ev("a", 3), ev("a", 1), ev("b", 2), ev("c", 20)];
  expect((await asOwner(page, "POST", "/journey/events", { events: sent })).status).toBe(202);

  await page.goto(`${server.url}/console/links/${linkId}`);
  await page.waitForFunction(() => (document.getElementById("w-realtime-journey") as any)?.state === "loaded", null, { timeout: 20_000 });
  expect(await figure("w-realtime-journey", "Visitors, last 5 minutes")).toBe("2");
  expect(await figure("w-realtime-journey", "Events, last 5 minutes")).toBe("3");

  expect((await asOwner(page, "POST", "/journey/events", { events: [ev("d", 0)] })).status).toBe(202);
  await page.waitForFunction(
    () => {
      const el = document.getElementById("w-realtime-journey")?.shadowRoot;
      const dt = [...(el?.querySelectorAll("dt") ?? [])].find((d) => d.textContent === "Visitors, last 5 minutes");
      return dt?.nextElementSibling?.textContent === "3";
    },
    null,
    { timeout: 25_000 },
  );
  expect(await figure("w-realtime-journey", "Events, last 5 minutes")).toBe("4");
  await screenshot(page, "link-realtime");
  expect(errors).toEqual([]);
}, 90_000);
