// What the widgets and the dashboard page do before or without an answer of our API: the questions
// they ask instead of fetching, an API that cannot be reached, an answer that is not the API's. No
// server of ours runs here (BASE is a port nothing listens on).
import { describe, expect, test } from "bun:test";
import { errorBox, mount, settled, setupWidgetTests, text } from "./view";
import { openDashboard, page } from "./dashboard-page";

setupWidgetTests();
const BASE = "http://127.0.0.1:9/public-api/v1";
const KEY = "svc_" + "k".repeat(28);
const open = () => openDashboard(BASE);

describe("dashboard.html", () => {
  test("has the controls the end-to-end test drives", () => {
    const { $ } = open();
    for (const id of ["api-key", "save-key", "link", "range", "steps", "theme"]) {
      expect($("#" + id)).not.toBeNull();
      expect($("#" + id).getAttribute("data-testid")).toBe(id);
    }
    expect(page).toContain('<script type="module" src="/widgets.js"></script>');
  });

  test("without a key it asks for one and creates no widget", async () => {
    const { $, widgets, dash } = open();
    await dash.ready;
    expect(widgets().length).toBe(0);
    expect($("#status").textContent).toContain("Paste a read-only API key");
  });
});

describe("<svc-link-stats>", () => {
  test("without link-id it asks for one", async () => {
    const el = mount("svc-link-stats", { "api-base": BASE, "api-key": KEY });
    const s = await settled(el);
    expect(s.type).toBe("svc-error");
    expect(text(el)).toContain("Pick a link");
  });
});

describe("errors", () => {
  test("a server that cannot be reached", async () => {
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const base = `http://127.0.0.1:${dead.port}/public-api/v1`;
    await dead.stop(true);
    const el = mount("svc-summary", { "api-base": base, "api-key": KEY });
    const s = await settled(el);
    expect(s.detail).toMatchObject({ status: 0, code: "NETWORK_ERROR" });
    expect(errorBox(el)).toContain(`Could not reach the API at ${base}`);
  });

  test("an answer that is not the API envelope", async () => {
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<html>proxy error</html>", { status: 502 }) });
    try {
      const el = mount("svc-summary", { "api-base": `http://127.0.0.1:${other.port}`, "api-key": KEY });
      const s = await settled(el);
      expect(s.detail).toMatchObject({ status: 502, code: "BAD_RESPONSE" });
      expect(errorBox(el)).toContain("HTTP 502");
    } finally {
      await other.stop(true);
    }
  });
});
