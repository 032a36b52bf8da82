// The journey job's queries run under the jobs' own time limit (CLICKHOUSE_JOB_QUERY_TIMEOUT_MS), not the
// reports' (CLICKHOUSE_QUERY_TIMEOUT_MS): with a reports' limit that cuts every report query, the job's
// round still stores the funnel state. A piece of a round that fails is reported once, with its link,
// the rest of the round goes on, and the next round stores it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { countFunnelLevelsStored, periodFromMs } from "../../server/journey/funnel-cache-query";
import { countFunnelLevelsFromBundles } from "../../server/journey/funnel-query";
import { type RefreshFailure, refreshJourneyReports } from "../../server/journey/report-cache-job";
import { noteFunnel } from "../../server/journey/report-demand";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";
import { QueryTimeoutError } from "../../server/storage/failures";
import { createTestApp, type TestApp } from "../helpers/app";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEPS = ["page_view", "add_to_cart", "purchase"];
const PERIOD = 30 * DAY;
/** A limit no query on this data meets: each report query is cut at it. */
const REPORTS_LIMIT_MS = 1;

let app: TestApp;
let accountId: string;
let key: string;
let linkId: string;
/** The same store without a limit, to read what the job stored. */
let free: Clickhouse;

beforeAll(async () => {
  app = await createTestApp({}, { CLICKHOUSE_QUERY_TIMEOUT_MS: String(REPORTS_LIMIT_MS) }, { jobs: false });
  ({ accountId, key } = await app.createAccount());
  const link = await app.call("/public-api/v1/links", { method: "POST", key, json: { url: "https://example.com/shop" } });
  linkId = link.body.data.id;
  free = app.runtime.deps.ch.forBackground({ limitMs: 0 });
  // 40 days of sessions of 2,000 visitors: some view, fewer add to cart, fewer buy.
  const now = Date.now();
  const rows = [];
  for (let s = 0; s < 12_000; s++) {
    const visitor = `v${(s * 7919) % 2000}`;
    let ms = now - 40 * DAY + Math.floor((((s * 104_729) % 1_000_003) / 1_000_003) * 40 * DAY) - HOUR;
    const kinds = ["page_view", ...(s % 3 === 0 ? ["add_to_cart"] : []), ...(s % 7 === 0 ? ["purchase"] : [])];
    for (const kind of kinds) {
      ms += 30_000;
      const e =
        kind === "page_view"
          ? { event_type: "page_view", page_url: "/shop" }
          : { event_type: kind === "purchase" ? "conversion" : "custom", event_name: kind, page_url: "/cart" };
      rows.push(
        toJourneyRow(crypto.randomUUID(), now, chTime(now), accountId, {
          ...e,
          visitor_id: visitor,
          link_id: linkId,
          session_id: `s${s}`,
          timestamp: new Date(ms).toISOString(),
        }),
      );
    }
  }
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    await insertJourneyRows(free, Buffer.from(chunk.map((r) => JSON.stringify(r)).join("\n")), chunk.length, crypto.randomUUID());
  }
}, 180_000);
afterAll(() => app.close());

const stored = (steps: string[], nowMs: number) =>
  countFunnelLevelsStored(free, { accountId, linkId, fromMs: periodFromMs(PERIOD, nowMs) }, steps, PERIOD, nowMs);

test("with a reports' limit that cuts every report, the job's round still stores the funnel's state", async () => {
  // The reports' limit cuts the funnel report...
  const report = await app.call(`/public-api/v1/journey/links/${linkId}/funnel?steps=${STEPS.join(",")}&period=30d`, { key });
  expect(report.status).toBe(503);
  expect(report.body.error.code).toBe("QUERY_TIMEOUT");
  // ...and a query of the job's size run under it.
  const nowMs = Date.now();
  const r = { accountId, linkId, fromMs: periodFromMs(PERIOD, nowMs) };
  expect(await countFunnelLevelsFromBundles(app.runtime.deps.ch, r, STEPS, PERIOD).catch((e) => e)).toBeInstanceOf(QueryTimeoutError);
  expect(await stored(STEPS, nowMs)).toBeNull();
  // The report noted what it wanted when it could not read the state; here the demand is noted as it would be.
  noteFunnel(app.runtime.deps.ch, { accountId, linkId, steps: STEPS, periodMs: PERIOD });
  await app.runtime.jobs.journey.runOnce();
  const levels = await stored(STEPS, Date.now());
  expect(levels).not.toBeNull();
  // What it stored is the funnel's answer (the current hour holds no event).
  const want = await countFunnelLevelsFromBundles(free, r, STEPS, PERIOD);
  expect(levels?.byLevel).toEqual(want);
  expect(want[3]).toBeGreaterThan(0);
}, 120_000);

test("a piece that fails is reported once with its link, the others are stored, and the next round stores it", async () => {
  const ch = app.runtime.deps.ch;
  const nowMs = Date.now();
  const failing = ["page_view", "purchase"];
  const other = ["add_to_cart", "purchase"];
  noteFunnel(ch, { accountId, linkId, steps: failing, periodMs: PERIOD }, nowMs);
  noteFunnel(ch, { accountId, linkId, steps: other, periodMs: PERIOD }, nowMs);
  const failures: RefreshFailure[] = [];
  // A round whose queries for one funnel run under a limit that cuts them: a store that fails that piece only.
  const cutting = ch.forBackground({ limitMs: REPORTS_LIMIT_MS });
  const picky: Clickhouse = {
    ...free,
    query: (q, p) => (p?.funnel === failing.join(",") ? cutting.query(q, p) : free.query(q, p)),
  };
  await refreshJourneyReports(ch, { nowMs, queries: picky, onFailure: (f) => failures.push(f) });
  expect(failures.map((f) => ({ what: f.what, accountId: f.accountId, linkId: f.linkId, steps: f.steps }))).toEqual([
    { what: "funnel", accountId, linkId, steps: failing },
  ]);
  expect(failures[0].error).toBeInstanceOf(QueryTimeoutError);
  expect(await stored(failing, nowMs)).toBeNull();
  expect(await stored(other, nowMs)).not.toBeNull();
  // Nothing of it was stored, and the demand stays: the next round (under the jobs' limit) stores it.
  failures.length = 0;
  const wrote = await refreshJourneyReports(ch, {
    nowMs,
    queries: ch.forBackground({ limitMs: 600_000 }),
    onFailure: (f) => failures.push(f),
  });
  expect(wrote).toBeGreaterThanOrEqual(1);
  expect(failures).toEqual([]);
  expect(await stored(failing, nowMs)).not.toBeNull();
}, 120_000);
