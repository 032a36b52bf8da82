// The bundle: built by dashboard-widgets/build.ts, self-contained, within its gzipped budget.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { useDom } from "./dom";
import { runBuild } from "../helpers/build-script";

useDom();
const root = join(import.meta.dir, "../..");
const dist = join(root, "dashboard-widgets/dist");
const build = (...args: string[]) => runBuild("dashboard-widgets/build.ts", ...args);

describe("build", () => {
  test("writes widgets.js and dashboard.html and reports sizes within 25 KB gzipped", () => {
    const r = build();
    const out = r.stdout.toString();
    expect(r.exitCode).toBe(0);
    const js = readFileSync(join(dist, "widgets.js"));
    const gz = gzipSync(js, { level: 9 }).length;
    expect(out).toContain(`widgets.js`);
    expect(out).toMatch(new RegExp(`${js.length} B raw +${gz} B gzip`));
    expect(gz).toBeLessThanOrEqual(25 * 1024);
    expect(js.toString()).not.toMatch(/^import|[;}]import[{ *]/); // self-contained ES module
    expect(js.toString()).not.toContain("\n  "); // minified
    const html = readFileSync(join(dist, "dashboard.html"), "utf8");
    expect(html).toContain('<script type="module" src="/widgets.js"></script>');
    expect(html).toContain('from"/widgets.js"');
    expect(html).not.toContain("data-dashboard");
    expect(existsSync(join(root, "dashboard-widgets/.gitignore"))).toBe(true);
  });

  test("exits non-zero over budget", () => {
    const r = build("--budget", "1000");
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.toString()).toContain("over its gzipped budget");
  });

  test("the bundle is an ES module exporting every widget class and the API client", async () => {
    if (!existsSync(join(dist, "widgets.js"))) build();
    const mod = await import(join(dist, "widgets.js"));
    for (const name of [
      "SvcSummaryElement",
      "SvcTimeseriesElement",
      "SvcBreakdownElement",
      "SvcFunnelElement",
      "SvcConversionsElement",
      "SvcLinkStatsElement",
      "apiGet",
      "defineWidgets",
    ])
      expect(typeof mod[name]).toBe("function");
    for (const tag of ["svc-summary", "svc-timeseries", "svc-breakdown", "svc-funnel", "svc-conversions", "svc-link-stats"])
      expect(customElements.get(tag)).toBeDefined();
  });
});
