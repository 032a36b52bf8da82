// Issue 8: the widgets embedded in somebody else's page (another origin) in headless Chromium. The
// module comes from our /widgets.js, the data from our API, both cross-origin: the answers, errors
// included, must be readable (CORS), or the widgets could only ever run on /dashboard.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startBackend, type Backend } from "../widgets/backend";
import { launchBrowser, watchErrors } from "./browser";
import { esc, startSite, type Site } from "./site";

let b: Backend;
let site: Site;
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  b = await startBackend();
  const attrs = (key: string) => `api-base="${esc(b.base)}" api-key="${esc(key)}"`;
  site = startSite({
    "/stats": `<!doctype html><html lang="en-US"><head><meta charset="utf-8"><title>Our numbers</title>
<script type="module" src="${esc(b.origin)}/widgets.js"></script></head><body>
<svc-summary id="ok" ${attrs(b.keys.full)} days="30"></svc-summary>
<svc-funnel id="funnel" ${attrs(b.keys.full)} link-id="${b.linkId}" steps="page_view,signup,purchase"></svc-funnel>
<svc-summary id="no-scope" ${attrs(b.keys.noAnalytics)}></svc-summary>
<svc-summary id="limited" ${attrs(b.keys.rateLimited)}></svc-summary>
<svc-summary id="bad-key" ${attrs(b.keys.invalid)}></svc-summary>
</body></html>`,
  });
});
afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await b?.stop();
});

const api = async (path: string) => ((await (await fetch(b.base + path, { headers: { "x-api-key": b.keys.full } })).json()) as any).data;

describe("widgets on another origin", () => {
  test("load data and read error answers (401/403/429 with Retry-After) cross-origin", async () => {
    const page = await browser.newPage({ locale: "en-US" });
    const errors = watchErrors(page);
    await page.goto(`${site.origin}/stats`);
    await page.waitForFunction(
      () =>
        ["ok", "funnel", "no-scope", "limited", "bad-key"].every((id) => {
          const s = (document.getElementById(id) as any).state;
          return s === "loaded" || s === "empty" || s === "error";
        }),
      undefined,
      { timeout: 20_000 },
    );

    const read = (id: string) =>
      page.evaluate((id) => {
        const el = document.getElementById(id) as any;
        const stat = (label: string) =>
          [...el.shadowRoot.querySelectorAll("dt")]
            .find((d: Element) => d.textContent!.trim() === label)
            ?.nextElementSibling?.textContent?.trim();
        return {
          state: el.state,
          clicks: stat("Clicks, last 30 days"),
          visitors: stat("Visitors"),
          alert: el.shadowRoot.querySelector("[role=alert]")?.textContent ?? "",
        };
      }, id);

    const summary = (await api("/analytics/summary?days=30")).analytics;
    expect(await read("ok")).toMatchObject({ state: "loaded", clicks: new Intl.NumberFormat("en-US").format(summary.total_clicks) });
    const funnel = await api(`/journey/links/${b.linkId}/funnel?steps=page_view,signup,purchase`);
    expect(await read("funnel")).toMatchObject({ state: "loaded", visitors: String(funnel.total_visitors) });

    const noScope = await read("no-scope");
    expect(noScope.state).toBe("error");
    expect(noScope.alert).toContain("lacks the analytics:read scope");
    expect(noScope.alert).toContain("403");
    const limited = await read("limited");
    expect(limited.state).toBe("error");
    expect(limited.alert).toMatch(/try again in \d+ s/);
    expect(limited.alert).toContain("429");
    const badKey = await read("bad-key");
    expect(badKey.state).toBe("error");
    expect(badKey.alert).toContain("The API key is missing or invalid");
    // The browser logs the refused answers as failed loads; nothing else may go wrong.
    expect(errors.filter((e) => !/status of (401|403|429)/.test(e))).toEqual([]);
    await page.close();
  }, 60_000);
});
