// The console's Imports page with Plausible's full export, in headless Chromium: the page recognises the
// zip and asks for the link its days go into; the owner finds the link with the keyboard in the link
// picker, the API's refusals (a CSV named Plausible, no link, a link gone meanwhile) show beside the
// field they name, the import answers completed, and the link's journeys show the imported days.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { asOwner, invalid, ROOT, screenshot, shows, unlabelled, useOwnerConsole } from "./console-setup";

const owner = useOwnerConsole();
const fixture = (name: string) => join(ROOT, "test", "fixtures", "imports", name);
const EXPORT = fixture("plausible_shop_example_20250304.zip");
const PICKER = "Link for the imported days";

test("a Plausible export into a link picked with the keyboard; its days on the link's journeys", async () => {
  const { server, page, errors } = owner;
  const newLink = async (json: object) => (await asOwner(page, "POST", "/links", json)).body.data.id as string;
  const shop = await newLink({ url: "https://shop.example/", title: "Shop home", custom_alias: "shop-home" });
  await newLink({ url: "https://example.com/other", title: "Other page", custom_alias: "other-page" });
  const gone = await newLink({ url: "https://example.com/gone", title: "Gone soon", custom_alias: "gone-soon" });

  await page.goto(`${server.url}/console/imports`);
  const file = page.getByLabel("Export file");
  const picker = page.getByRole("combobox", { name: PICKER });
  const options = page.getByRole("listbox", { name: PICKER }).getByRole("option");

  // A CSV named as Plausible's export: the API says the file is not a zip, beside the file field.
  await file.setInputFiles(fixture("bitly.csv"));
  await page.getByLabel("Source").selectOption("plausible");
  await picker.waitFor();
  await page.getByRole("button", { name: "Import" }).click();
  await invalid(file);
  await shows(page.locator(".field-error"), "is not a zip archive");

  // The zip is recognised with the source left to detection: the picker stays, the CSV-only fields go.
  await page.getByLabel("Source").selectOption("");
  await file.setInputFiles(EXPORT);
  await picker.waitFor();
  expect(await page.getByLabel("When a short code is taken").count()).toBe(0);
  expect(await unlabelled(page)).toEqual([]);

  // No link picked: the API's 400 names query.link_id, shown beside the picker.
  await page.getByRole("button", { name: "Import" }).click();
  await invalid(picker);
  await shows(page.locator(".field-error"), "is required for a Plausible export");

  // A link deleted after it was picked: the API's 404 names the field too.
  await picker.fill("gone");
  await options.filter({ hasText: "gone-soon" }).waitFor();
  await picker.press("Enter");
  expect(await picker.inputValue()).toBe("gone-soon · Gone soon");
  expect((await asOwner(page, "DELETE", `/links/${gone}`)).status).toBeLessThan(300);
  await page.getByRole("button", { name: "Import" }).click();
  await shows(page.locator(".field-error"), "Link not found");
  await invalid(picker);

  // Typed a letter of both codes, the list has the two live links (newest first); the arrow keys reach the shop's.
  await picker.fill("");
  await picker.pressSequentially("o");
  await page.waitForFunction(() => document.querySelectorAll("[role=option]").length === 2);
  expect(await picker.getAttribute("aria-expanded")).toBe("true");
  await expect(options.nth(0).textContent()).resolves.toContain("other-page");
  await picker.press("ArrowDown");
  const active = page.locator("[role=option][aria-selected=true]");
  await expect(active.textContent()).resolves.toContain("shop-home");
  expect(await picker.getAttribute("aria-activedescendant")).toBe(await active.getAttribute("id"));
  await screenshot(page, "imports-plausible");
  await picker.press("Enter");
  expect(await picker.inputValue()).toBe("shop-home · Shop home");
  expect(await picker.getAttribute("aria-expanded")).toBe("false");
  // The link's error goes once another link is picked.
  expect(await page.locator(".field-error").count()).toBe(0);

  await page.getByRole("button", { name: "Import" }).click();
  await page.getByRole("heading", { name: "Import completed (plausible)" }).waitFor({ timeout: 60_000 });
  const bar = page.locator("#import-bar");
  expect(await bar.getAttribute("max")).toBe("34");
  expect(await bar.getAttribute("value")).toBe("34");
  await expect(page.locator("#import-counts").textContent()).resolves.toBe(
    "34 rows of daily figures imported into shop-home: see its journeys",
  );
  await shows(page.getByRole("status"), "Imported 34 rows of Plausible's daily figures into shop-home");
  await page.locator("#imports tbody tr").filter({ hasText: "plausible" }).filter({ hasText: "completed" }).first().waitFor();

  // The link's journeys: the imported days beside its own (none yet), never in them.
  await page.locator("#import-counts").getByRole("link", { name: "shop-home" }).click();
  await page.waitForURL(new RegExp(`/console/links/${shop}$`));
  const imported = page.locator("#journey-imported");
  await imported.waitFor();
  expect(await imported.getByRole("heading", { level: 3 }).textContent()).toBe("Imported from Plausible, Mar 1, 2025 – Mar 3, 2025");
  expect(await page.locator("#journey-imported-line").textContent()).toBe(
    "39 visitors on 3 days before Mar 4, 2025: Plausible's own counts (visitors summed over days), not counted in the figures above.",
  );
  await expect(page.locator("#journey-summary").textContent()).resolves.toContain("Sessions0");
  expect(errors.filter((e) => !/\b(400|404)\b/.test(e))).toEqual([]);
}, 120_000);
