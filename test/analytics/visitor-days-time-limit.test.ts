// The analytics job's queries run under the jobs' own time limit (CLICKHOUSE_JOB_QUERY_TIMEOUT_MS), not the
// reports' (CLICKHOUSE_QUERY_TIMEOUT_MS): with a reports' limit that cuts every report query, the job's
// round still stores the closed days' visitor numbers, and they are the raw clicks' distinct visitors.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { refreshVisitorDays } from "../../server/analytics/visitor-days-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { QueryTimeoutError } from "../../server/storage/failures";
import { createTestApp, type TestApp } from "../helpers/app";
import { DAY_MS } from "./helpers";

/** A limit no query on this data meets: each report query is cut at it. */
const REPORTS_LIMIT_MS = 1;

let app: TestApp;
let accountId: string;
/** The same store without a limit, to read what the job stored. */
let free: Clickhouse;
const midnight = (ago: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - ago * DAY_MS;

beforeAll(async () => {
  app = await createTestApp({}, { CLICKHOUSE_QUERY_TIMEOUT_MS: String(REPORTS_LIMIT_MS) }, { jobs: false });
  ({ accountId } = await app.createAccount());
  free = app.runtime.deps.ch.forBackground({ limitMs: 0 });
  const linkId = crypto.randomUUID();
  // Three closed days of clicks: 40 people a day, each clicking twice.
  const rows = [2, 3, 4].flatMap((ago) =>
    Array.from({ length: 80 }, (_, i) => ({
      click_id: crypto.randomUUID(),
      timestamp: midnight(ago) + 3_600_000 + i * 60_000,
      account_id: accountId,
      link_id: linkId,
      visitor_hash: String(ago * 1_000 + (i % 40)),
      is_bot: 0,
      country_code: "US",
    })),
  );
  await free.insert("clicks", rows);
}, 120_000);
afterAll(() => app.close());

/** The latest stored visitor number of each closed day of the account's total report (migration 0270's stored rows). */
async function storedVisitors() {
  const rows = await free.query<{ d: string; v: string }>(
    `SELECT toString(day) AS d, tupleElement(max(stored), 4) AS v FROM ${free.table("clicks_daily")}
     WHERE account_id = {account:UUID} AND is_bot = 10 AND domain = '*' GROUP BY d ORDER BY d`,
    { account: accountId },
  );
  return rows.map((r) => Number(r.v));
}

test("with a reports' limit that cuts every report, the analytics job's round still stores the closed days' visitors", async () => {
  // The reports' limit cuts a round run through the reports' client...
  expect(await refreshVisitorDays(app.runtime.deps.ch).catch((e) => e)).toBeInstanceOf(QueryTimeoutError);
  expect(await storedVisitors()).toEqual([]);
  // ...and the job's own round runs under the jobs' limit.
  await app.runtime.jobs.analytics.runOnce();
  // The three days, and the day after the last one (its overlap with the day before: none).
  expect(await storedVisitors()).toEqual([40, 40, 40, 0]);
}, 120_000);
