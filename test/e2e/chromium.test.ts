// Which Chromium the browser tests use (browser.ts), and that it renders a page and runs its script.
// CI runs test/e2e once with SVC_TEST_BUNDLED_CHROMIUM=1: the npm package's Chromium, as on a machine
// with only Node.js and npm.
import { expect, test } from "bun:test";
import { chromiumPath, launchBrowser } from "./browser";

test("the Chromium found renders a page and runs its script", async () => {
  const found = await chromiumPath();
  if (process.env.SVC_TEST_BUNDLED_CHROMIUM === "1") expect(found.source).toBe("@sparticuz/chromium");
  else if (!process.env.CHROMIUM_PATH) expect(["system", "@sparticuz/chromium"]).toContain(found.source);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.setContent("<p id=out>…</p><script>document.getElementById('out').textContent = String(6 * 7)</script>");
    expect(await page.textContent("#out")).toBe("42");
  } finally {
    await browser.close();
  }
});
