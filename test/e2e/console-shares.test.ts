// The console's Sharing page in headless Chromium: share a link with a password, open the address once
// shown as a stranger would, turn it off (the address shows nothing), give it a new address.
import { expect, test } from "bun:test";
import { asOwner, screenshot, shows, useOwnerConsole, unlabelled } from "./console-setup";

const owner = useOwnerConsole();

test("share a link from the console, open it as a stranger, turn it off, give it a new address", async () => {
  const { server, browser, page, errors } = owner;
  const link = await asOwner(page, "POST", "/links", { url: "https://example.com/spring", title: "Spring sale" });
  expect(link.status).toBe(201);
  await page.goto(`${server.url}/console/shares`);
  await page.getByText("No shared dashboards yet.").waitFor();
  await page.getByLabel("Title").fill("Spring for <Acme>");
  await page.getByLabel("What it shows").selectOption("link");
  await page.getByLabel("Link", { exact: true }).selectOption(link.body.data.id);
  await page.getByLabel("The link's totals").check();
  // A link share offers its paths, returning visitors and realtime clicks, not attribution; and a comparison.
  expect(await page.getByLabel("Conversion attribution").count()).toBe(0);
  await page.getByLabel("Returning visitors").check();
  await page.getByLabel("Compare with").selectOption("previous");
  await page.getByLabel("Password (optional)").fill("open sesame");
  expect(await unlabelled(page)).toEqual([]);
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const url = (await page.locator("#new-share-url").textContent())!;
  expect(url).toMatch(new RegExp(`^${server.url}/share/shr_[A-Za-z0-9_-]{43}$`));
  await shows(page.locator("#shares tr"), "Spring for <Acme>");
  await shows(page.locator("#shares tr"), "On, with a password");
  await shows(page.locator("#shares tr"), "Returning visitors; compared with the previous period");
  await screenshot(page, "shares-desktop-dark");

  // A stranger: no console session, the password, then the dashboard.
  const stranger = await browser.newContext({ locale: "en-US" });
  const view = await stranger.newPage();
  await view.goto(url);
  await view.fill("#password", "open sesame");
  await view.click("button[type=submit]");
  await view.locator("#w-link-stats").waitFor();
  expect(await view.locator("#w-retention").getAttribute("compare")).toBe("previous");
  expect(await view.textContent("h1")).toBe("Spring for <Acme>");

  await page.getByRole("button", { name: "I have copied it" }).click();
  await page.getByRole("button", { name: /Turn off/ }).click();
  await shows(page.locator("#shares tr"), "Off");
  expect((await view.goto(url))!.status()).toBe(404);

  await page.getByRole("button", { name: /New address/ }).click();
  const next = (await page.locator("#new-share-url").textContent())!;
  expect(next).not.toBe(url);
  await stranger.close();
  expect(errors).toEqual([]);
});
