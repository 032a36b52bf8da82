// The console's Imports page in headless Chromium: the owner uploads a Bitly export, watches the progress
// bar reach the end, reads the rows refused and why, finds the links with their codes, and the page offers
// the links list as CSV in the format it reads back; a link given a Plausible export shows the imported days apart from its own.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asOwner, ROOT, screenshot, useOwnerConsole } from "./console-setup";

const owner = useOwnerConsole();

test("an import from the console: progress bar to the end, the refused rows listed, the links there", async () => {
  const { server, page, errors } = owner;
  await page.goto(`${server.url}/console/links`);
  await page.getByRole("link", { name: "Imports" }).first().click();
  await page.waitForURL(/\/console\/imports$/);
  await page.getByLabel("Export file").setInputFiles(join(ROOT, "test", "fixtures", "imports", "bitly.csv"));
  await page.getByLabel("Source").selectOption("bitly");
  await page.getByRole("button", { name: "Import" }).click();

  await page.getByRole("heading", { name: "Import completed (bitly)" }).waitFor({ timeout: 60_000 });
  const bar = page.locator("#import-bar");
  expect(await bar.getAttribute("max")).toBe("5");
  expect(await bar.getAttribute("value")).toBe("5");
  await expect(page.locator("#import-counts").textContent()).resolves.toContain("2 created, 0 skipped, 3 failed");
  const refused = page.locator("#import-errors tbody tr");
  expect(await refused.count()).toBe(3);
  await expect(refused.nth(0).textContent()).resolves.toContain("formula");
  await expect(refused.nth(1).textContent()).resolves.toContain("go.acme-example.com");
  // The recent imports list shows it too.
  await page.locator("#imports tbody tr").filter({ hasText: "completed" }).first().waitFor();
  await screenshot(page, "imports");

  const links = await asOwner(page, "GET", "/links?per_page=100");
  const codes = links.body.data.map((l: any) => l.short_code).sort();
  expect(codes).toEqual(["3Xk9aQz", "team-page"]);

  // The export the page offers, fetched with the page's session, is the format the importer reads.
  const href = await page.getByRole("link", { name: "Download all links (CSV)" }).getAttribute("href");
  const csv = await page.evaluate(async (h) => (await fetch(h!)).text(), href);
  expect(csv.split("\r\n")[0]).toBe("short_url,domain,short_code,original_url,title,description,tags,created_at,imported_clicks");
  expect(csv).toContain(",team-page,https://example.com/team,");
  expect(errors).toEqual([]);
}, 120_000);

test("a file the importer cannot read is refused on the page, nothing created", async () => {
  const { server, page } = owner;
  await page.goto(`${server.url}/console/imports`);
  const bad = { name: "latin1.csv", mimeType: "text/csv", buffer: Buffer.from("url,title\nhttps://example.com/x,Caf\xe9\n", "latin1") };
  await page.getByLabel("Export file").setInputFiles(bad);
  await page.getByRole("button", { name: "Import" }).click();
  await page.getByRole("alert").filter({ hasText: "UTF-8" }).first().waitFor();
  const links = await asOwner(page, "GET", "/links?per_page=100");
  expect(links.body.data.length).toBe(2);
}, 60_000);

test("a link with a Plausible export shows the imported days apart from its own: totals and every breakdown", async () => {
  const { server, page, errors } = owner;
  // The page is the previous tests' (whose refused upload logged its 400): only this test's errors count.
  const before = errors.length;
  await page.goto(`${server.url}/console/links`);
  const link = await asOwner(page, "POST", "/links", { url: "https://shop.example/" });
  expect(link.status).toBe(201);
  const zip = readFileSync(join(ROOT, "test", "fixtures", "imports", "plausible_shop_example_20250304.zip")).toString("base64");
  const status = await page.evaluate(
    async ({ id, zip }) => {
      const session = await (await fetch("/console/api/session")).json();
      const body = Uint8Array.from(atob(zip), (c) => c.charCodeAt(0));
      const res = await fetch(`/public-api/v1/imports?link_id=${id}`, {
        method: "POST",
        headers: { "content-type": "application/zip", "x-csrf-token": session.data.csrf_token },
        body,
      });
      return res.status;
    },
    { id: link.body.data.id as string, zip },
  );
  expect(status).toBe(202);

  await page.goto(`${server.url}/console/links/${link.body.data.id}`);
  const imported = page.locator("#journey-imported");
  await imported.waitFor();
  await expect(imported.getByRole("heading", { level: 3 }).textContent()).resolves.toMatch(/^Imported from Plausible, /);
  // Our own figures stay zero; the imported ones (the fixture's 12 + 20 + 7 visitors) are under their heading.
  await expect(page.locator("#journey-summary").textContent()).resolves.toContain("Sessions0");
  await expect(imported.locator("dl").textContent()).resolves.toContain("Visitors39");
  const rows = (id: string) => page.getByTestId(id).locator("tbody tr").allTextContents();
  await expect(rows("imported-countries")).resolves.toEqual(["FR20", "DE19"]);
  await expect(rows("imported-sources")).resolves.toEqual(["Google28", "Direct / None7", "Newsletter4"]);
  await expect(rows("imported-top_pages")).resolves.toEqual(["/52", "/pricing28"]);
  await screenshot(imported, "journey-imported");
  expect(errors.slice(before)).toEqual([]);
}, 120_000);
