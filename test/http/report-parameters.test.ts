// Every report (click analytics, link stats, journey reports, conversions) refuses a query parameter it
// does not take with a 400 naming each one, instead of answering as if it were not there. The routes are
// read from the running app, so a new report is covered (and must be listed here) the day it is added.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";

const P = "/public-api/v1";
let t: TestApp;
let key: string;
let linkId: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.createAccount({ tier: "scale" }));
  linkId = (await t.call(`${P}/links`, { method: "POST", key, json: { url: "https://example.com/r" } })).body.data.id;
}, 60_000);
afterAll(() => t.close());

const REPORTS = [
  "/analytics/summary",
  "/analytics/timeseries",
  "/analytics/geo",
  "/analytics/devices",
  "/analytics/referrers",
  "/analytics/hourly",
  "/analytics/links",
  "/analytics/realtime",
  "/links/:id/stats",
  "/journey/links/:link_id/summary",
  "/journey/links/:link_id/sessions",
  "/journey/links/:link_id/events",
  "/journey/links/:link_id/funnel",
  "/journey/links/:link_id/paths",
  "/journey/links/:link_id/retention",
  "/journey/links/:link_id/realtime",
  "/conversions/summary",
  "/conversions/timeseries",
  "/conversions/breakdown",
  "/conversions/time-to-convert",
  "/conversions/attribution",
];
/** What each report needs to answer 200 (its required parameters). */
const REQUIRED: Record<string, string> = {
  "/journey/links/:link_id/funnel": "steps=signup",
  "/journey/links/:link_id/paths": "start=signup",
  "/conversions/breakdown": "dimension=country",
  "/analytics/links": "link_ids=LINK",
};

const reportRoutes = () =>
  t.runtime.app.routes
    .filter((r) => r.method === "GET" && r.path.startsWith(`${P}/`))
    .map((r) => r.path.slice(P.length))
    .filter((p) => /^\/(analytics|journey|conversions)\/|\/stats$/.test(p));

describe("unknown query parameters", () => {
  test("the app's report routes are the ones this test knows", () => {
    expect(reportRoutes().sort()).toEqual([...REPORTS].sort());
  });

  test.each(REPORTS)("%s: 400 naming every unknown parameter; 200 without them", async (route) => {
    const path = `${P}${route.replace(/:\w+/, linkId)}`;
    const required = REQUIRED[route] ? `${REQUIRED[route].replace("LINK", linkId)}&` : "";
    const res = await t.call(`${path}?${required}linkid=${linkId}&colour=red`, { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.message).toBe("Unknown query parameters: linkid, colour");
    expect(res.body.error.details.fields).toEqual([
      { field: "query.linkid", message: "is not a parameter of this request" },
      { field: "query.colour", message: "is not a parameter of this request" },
    ]);
    const ok = await t.call(required ? `${path}?${required.slice(0, -1)}` : path, { key });
    expect(ok.status).toBe(200);
  });
});
