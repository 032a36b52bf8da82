// The conversion indexes' mark follows the mutations of the tables they are loaded from, not only their
// number: an erasure whose delete on journey_events is still pending when the job loads the index (the
// bundles' delete already done) moves the mark when it finishes, so the index stops answering the erased
// visitor, and the next round loads it from the events as they are.
import { beforeAll, expect, test } from "bun:test";
import { indexedBreakdown } from "../../server/conversions/breakdown-index";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { until } from "../helpers/until";
import { expectedBreakdown, insertEvents, type SentEvent } from "./helpers";

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const openHour = Math.floor(Date.now() / HOUR) * HOUR;
const account = crypto.randomUUID();
const shop = crypto.randomUUID();
const db = useClickhouseBefore(100_000);
let ch: Clickhouse;
beforeAll(() => {
  ch = db.ch;
});

const rows = (r: { label: string; visitors: number; converters: number }[] | null) =>
  r?.map((x) => [x.label, x.visitors, x.converters]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

test("an erasure finishing after the index was loaded moves its mark", async () => {
  const sent: SentEvent[] = [];
  for (let i = 0; i < 40; i++) {
    const base = { link: shop, visitor: `v${i}`, device: i % 2 ? "mobile" : "desktop", country: "US" };
    const ms = openHour - MIN - (i + 1) * 3 * HOUR;
    sent.push({ ...base, type: "page_view", ms });
    if (i % 3 === 0) sent.push({ ...base, type: "conversion", ms: ms + 30_000, conversion_name: "order", revenue_cents: 100 });
  }
  await insertEvents(ch, account, sent, 20);
  const from = Math.floor((Date.now() - 30 * DAY) / HOUR) * HOUR;
  const scope = { accountId: account, linkId: null };
  expect(await indexedBreakdown(ch, scope, "device", from)).toBeNull(); // asked: the job loads it
  await refreshJourneyReports(ch);
  expect(rows(await indexedBreakdown(ch, scope, "device", from))).toEqual(rows(expectedBreakdown(sent, [shop], "device")));

  // Erase a converter: the bundles' delete finishes, the events' waits (merges stopped) while the job loads.
  const erased = "v3";
  const kept = sent.filter((e) => e.visitor !== erased);
  await ch.command(`SYSTEM STOP MERGES ${ch.table("journey_events")}`);
  await ch.command(`ALTER TABLE ${ch.table("journey_events")} DELETE WHERE visitor_id = {v:String} SETTINGS mutations_sync = 0`, {
    v: erased,
  });
  await ch.command(
    `ALTER TABLE ${ch.table("journey_event_bundles")} DELETE WHERE vh = cityHash64({v:String}) SETTINGS mutations_sync = 2`,
    {
      v: erased,
    },
  );
  await refreshJourneyReports(ch);
  await ch.command(`SYSTEM START MERGES ${ch.table("journey_events")}`);
  await until(async () => {
    const [r] = await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table("journey_events")} WHERE visitor_id = {v:String}`, {
      v: erased,
    });
    return Number(r.n) === 0;
  });
  // Done: whatever the index loaded while the delete was pending no longer answers...
  const during = await indexedBreakdown(ch, scope, "device", from);
  if (during) expect(rows(during)).toEqual(rows(expectedBreakdown(kept, [shop], "device")));
  // ...and the next round's index is the events' as they are.
  await refreshJourneyReports(ch);
  expect(rows(await indexedBreakdown(ch, scope, "device", from))).toEqual(rows(expectedBreakdown(kept, [shop], "device")));
}, 120_000);
