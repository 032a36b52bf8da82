// The comparison windows and changes (server/reports/compare.ts): weekday-aligned shifts and the
// change of every top-level number.
import { expect, test } from "bun:test";
import { changeOf, compareReports, compareShiftMs, rollingWindow, rowTotals, withComparison } from "../../server/reports/compare";

const DAY = 86_400_000;

test("previous shifts by the period rounded up to whole weeks, year by 52 weeks: the weekday stays", () => {
  expect([1, 7, 30, 90].map((days) => compareShiftMs("previous", days * DAY) / DAY)).toEqual([7, 7, 35, 91]);
  expect(compareShiftMs("year", 30 * DAY) / DAY).toBe(364);
  const from = Date.UTC(2026, 10, 23, 10); // a Monday, 10:00
  for (const days of [1, 7, 30, 90]) {
    const shifted = new Date(from - compareShiftMs("previous", days * DAY));
    expect([shifted.getUTCDay(), shifted.getUTCHours()]).toEqual([1, 10]);
  }
});

test("the change of each top-level number, null against 0, nothing for other fields", () => {
  expect(changeOf({ visitors: 150, returning: 0, steps: [], name: "x" }, { visitors: 120, returning: 0, steps: [], name: "y" })).toEqual({
    visitors: { current: 150, previous: 120, change_percent: 25 },
    returning: { current: 0, previous: 0, change_percent: null },
  });
  expect(changeOf({ n: 1 }, { n: 3 }).n.change_percent).toBe(-66.67);
});

test("withComparison runs the report over both windows; without compare only over the current one", async () => {
  const seen: { fromMs: number; toMs: number }[] = [];
  const report = async (w: { fromMs: number; toMs: number }) => (seen.push(w), { n: w.fromMs === 0 ? 10 : 5 });
  const now = 30 * DAY;
  expect(await withComparison(undefined, { fromMs: 0, toMs: now }, 7 * DAY, report, { aheadMs: DAY })).toEqual({ n: 10 });
  expect(seen).toEqual([{ fromMs: 0, toMs: now + DAY }]);
  const compared = await withComparison("previous", { fromMs: 0, toMs: now }, 7 * DAY, report, { aheadMs: DAY });
  expect(compared.comparison).toEqual({
    compare: "previous",
    from: new Date(-7 * DAY).toISOString(),
    to: new Date(now - 7 * DAY).toISOString(),
    data: { n: 5 },
    change: { n: { current: 10, previous: 5, change_percent: 100 } },
  });
});

test("a list report's change compares the sums of its rows' figures", async () => {
  const rows = (n: number) => [
    { country_code: "DE", clicks: n, unique_visitors: 1 },
    { country_code: "FR", clicks: 1, unique_visitors: 1 },
  ];
  const { current, comparison } = await compareReports(
    "year",
    { fromMs: 0, toMs: DAY },
    DAY,
    async (_w, isCurrent) => rows(isCurrent ? 3 : 1),
    {
      figures: rowTotals("clicks", "unique_visitors"),
    },
  );
  expect(current).toEqual(rows(3));
  expect(comparison?.from).toBe(new Date(-364 * DAY).toISOString());
  expect(comparison?.change).toEqual({
    clicks: { current: 4, previous: 2, change_percent: 100 },
    unique_visitors: { current: 2, previous: 2, change_percent: 0 },
  });
});

test("a rolling period's window: whole hours, the open hour whole, never past the current start once shifted", () => {
  const HOUR = 3_600_000;
  const now = Date.UTC(2026, 10, 29, 11, 40);
  const from7d = Date.UTC(2026, 10, 22, 11); // the 7d period: the current hour and the 7 × 24 before it
  expect(rollingWindow("previous", from7d, 7 * DAY, now)).toEqual({ fromMs: from7d, toMs: from7d + 7 * DAY });
  const from30d = Date.UTC(2026, 9, 30, 11);
  expect(rollingWindow("previous", from30d, 30 * DAY, now)).toEqual({ fromMs: from30d, toMs: Date.UTC(2026, 10, 29, 12) });
  expect(rollingWindow("year", from30d, 30 * DAY, now).toMs % HOUR).toBe(0);
});
