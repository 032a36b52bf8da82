// Migration 0230 (closed periods' visitor counts, visitors by hour) on a database that already holds journey
// events, while an instance of the previous version keeps inserting: afterwards every journey and conversion
// visitor count of a link and of the account, taken through the closed periods, equals the count of the
// events sent (those stored before, during and after the migration), and running 0230 again changes nothing.
import { beforeAll, expect, test } from "bun:test";
import { countWithClosedDays, WHOLE_ACCOUNT } from "../../server/journey/closed-days-query";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { insertEvents, type SentEvent } from "../conversions/helpers";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const account = crypto.randomUUID();
const shop = crypto.randomUUID();
const blog = crypto.randomUUID();

const migrated = useClickhouseBefore(230);
let ch: Clickhouse;
beforeAll(() => {
  ch = migrated.ch;
});

/** Visitors from..to-1, each with a page view `daysAgo` days back and today, every fifth converting today. */
function visitors(from: number, to: number, daysAgo: number): SentEvent[] {
  const now = Date.now();
  return Array.from({ length: to - from }, (_, k) => from + k).flatMap((i) => {
    const base = { link: i % 3 ? shop : blog, visitor: `v${i}`, device: "mobile", country: "US" };
    const today = Math.max(Math.floor(now / DAY) * DAY, now - (i % 120) * 60_000);
    return [
      { ...base, type: "page_view" as const, ms: now - daysAgo * DAY - (i % 24) * HOUR },
      { ...base, type: (i % 5 ? "page_view" : "conversion") as SentEvent["type"], ms: today },
    ];
  });
}

const sent: SentEvent[] = [];
const send = async (events: SentEvent[]) => {
  await insertEvents(ch, account, events, 150);
  sent.push(...events);
};

/** After a round of the journey job (which stores what the reports asked for): every count through the closed days, as sent. */
async function expectExact() {
  const now = Date.now();
  for (const scope of [shop, WHOLE_ACCOUNT])
    await countWithClosedDays(ch, { accountId: account, scope, fromMs: now - 30 * DAY }, true, now);
  await refreshJourneyReports(ch, now);
  for (const days of [1, 7, 30, 90]) {
    const fromMs = Math.floor((now - days * DAY) / HOUR) * HOUR;
    for (const [scope, links] of [
      [shop, [shop]],
      [WHOLE_ACCOUNT, [shop, blog]],
    ] as const) {
      const mine = sent.filter((e) => (links as readonly string[]).includes(e.link) && e.ms >= fromMs);
      expect({ days, scope, ...(await countWithClosedDays(ch, { accountId: account, scope, fromMs }, true, now)) }).toEqual({
        days,
        scope,
        visitors: new Set(mine.map((e) => e.visitor)).size,
        converters: new Set(mine.filter((e) => e.type === "conversion").map((e) => e.visitor)).size,
      });
    }
  }
}

test("0230 builds its tables from the events stored before it while the previous version keeps writing", async () => {
  // Before: 1,200 visitors, first seen 3 to 40 days back.
  for (let i = 0; i < 4; i++) await send(visitors(i * 300, (i + 1) * 300, 3 + i * 12));
  // The old instance keeps flushing chunks while the migration runs (its statements interleave with them).
  let writing = true;
  const oldInstance = (async () => {
    for (let i = 0; writing || i < 3; i++) await send(visitors(1000 + i * 40, 1040 + i * 40, 1 + (i % 20)));
  })();
  await migrated.apply(230);
  writing = false;
  await oldInstance;
  // And after it: returning and new visitors.
  await send(visitors(600, 1600, 2));
  await expectExact();
  // A migration interrupted before it was recorded runs again on the next start: nothing changes.
  await migrated.apply(230);
  await expectExact();
  await ch.command(`OPTIMIZE TABLE ${ch.table("journey_visitor_hours")} FINAL`);
  await expectExact();
}, 120_000);
