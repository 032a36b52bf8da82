// The console's Reports and alerts page in headless Chromium: subscribe an address to the reports, set
// an alert on a link with recipients, see both listed as the API stores them, turn the alert off, delete.
import { expect, test } from "bun:test";
import { asOwner, screenshot, shows, useOwnerConsole, unlabelled } from "./console-setup";

const owner = useOwnerConsole();

test("subscribe an address, set a conversion-rate alert on a link, turn it off, delete it", async () => {
  const { server, page, errors } = owner;
  const link = await asOwner(page, "POST", "/links", { url: "https://example.com/spring", title: "Spring sale" });
  expect(link.status).toBe(201);
  await page.goto(`${server.url}/console/alerts`);
  await page.getByText("No one gets the reports yet.").waitFor();
  await page.getByLabel("Email address").fill("Boss@Example.com");
  await page.getByLabel("Monthly").check();
  expect(await unlabelled(page)).toEqual([]);
  await page.getByRole("button", { name: "Subscribe", exact: true }).click();
  await shows(page.locator("#report-subscriptions tr"), "boss@example.com");
  await shows(page.locator("#report-subscriptions tr"), "Weekly, Monthly");

  await page.getByLabel("When").selectOption("conversion_drop");
  await page.getByLabel("N (percent)").fill("30");
  await page.getByLabel("On", { exact: true }).selectOption(link.body.data.id);
  await page.getByLabel("Email to (optional)").fill("ops@example.com, cfo@example.com");
  await page.getByRole("button", { name: "Set alert" }).click();
  await shows(page.locator("#alerts tr"), "Conversion rate down by 30%");
  await shows(page.locator("#alerts tr"), "ops@example.com, cfo@example.com");
  const stored = await asOwner(page, "GET", "/alerts");
  expect(stored.body.data).toMatchObject([
    {
      kind: "conversion_drop",
      threshold: 30,
      link_id: link.body.data.id,
      recipients: ["ops@example.com", "cfo@example.com"],
      enabled: true,
    },
  ]);
  await screenshot(page, "alerts-desktop-dark");

  await page.getByRole("button", { name: "Turn off" }).click();
  await shows(page.locator("#alerts tr"), "Off");
  expect((await asOwner(page, "GET", "/alerts")).body.data[0].enabled).toBe(false);
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByText("No alerts yet.").waitFor();
  expect((await asOwner(page, "GET", "/alerts")).body.data).toEqual([]);
  expect(errors).toEqual([]);
}, 120_000);
