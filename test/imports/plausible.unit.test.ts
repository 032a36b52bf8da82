// Plausible's export files: which kind a zip entry is, and what one of its rows becomes.
import { expect, test } from "bun:test";
import { plausibleKindOf, readPlausibleRow, requiredColumns } from "../../server/imports/sources/plausible";

test("entry names: imported_<kind>_<from>_<to>.csv in any folder; anything else is no kind", () => {
  expect(plausibleKindOf("imported_visitors_20240101_20241231.csv")).toBe("visitors");
  expect(plausibleKindOf("export/imported_operating_systems_20240101_20241231.csv")).toBe("operating_systems");
  expect(plausibleKindOf("imported_entry_pages.csv")).toBe("entry_pages");
  expect(plausibleKindOf("imported_unknown_20240101_20241231.csv")).toBeNull();
  expect(plausibleKindOf("notes.txt")).toBeNull();
  expect(requiredColumns("browsers")).toEqual(["date", "browser", "visitors", "visits", "visit_duration", "bounces", "pageviews"]);
});

test("a row: figures read, entrances and exits as visits, the rest of the key as detail; bad cells named", () => {
  expect(
    readPlausibleRow("entry_pages", {
      date: "2025-03-01",
      entry_page: "/",
      visitors: "12",
      entrances: "14",
      visit_duration: "700",
      bounces: "4",
      pageviews: "30",
    }),
  ).toEqual({
    kind: "entry_pages",
    day: "2025-03-01",
    dimension: "/",
    detail: "",
    visitors: 12,
    visits: 14,
    pageviews: 30,
    bounces: 4,
    visit_duration: 700,
    events: 0,
  });
  expect(
    readPlausibleRow("browsers", {
      date: "2025-03-01",
      browser: "Firefox",
      visitors: "1",
      visits: "",
      visit_duration: "",
      bounces: "",
      pageviews: "",
    }),
  ).toMatchObject({
    dimension: "Firefox",
    detail: '[""]',
    visits: 0,
  });
  expect(readPlausibleRow("visitors", { date: "2025-02-30", visitors: "1" })).toBe("date: must be a date (YYYY-MM-DD)");
  expect(readPlausibleRow("custom_events", { date: "2025-03-01", name: "Signup", visitors: "-1", events: "1" })).toBe(
    "visitors: must be a number of 0 or more",
  );
});
