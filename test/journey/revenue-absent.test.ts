// revenue_cents in the journey events list: null when the event was sent without it, the value sent
// otherwise (0 included), for every event type. Also across an upgrade: spool rows written by the
// previous version (no has_revenue value) and rows stored before migration 0210 keep the answers
// they gave before, while new rows say exactly what was sent.
import { expect, test } from "bun:test";
import { JOURNEY_COLUMNS } from "../../server/ingest/journey/rows";
import { listJourneyEvents } from "../../server/journey/queries";
import { readClickhouseMigrations } from "../../server/storage/clickhouse/migrate";
import { chTime } from "../../server/storage/clickhouse/format";
import { insertLink, pageView, postEvents, useAppWithAccount } from "./helpers";

const app = useAppWithAccount();

const listed = async (linkId: string) => {
  await app.t.flush();
  const res = await app.t.call(`/public-api/v1/journey/links/${linkId}/events?limit=200`, { key: app.key });
  expect(res.status).toBe(200);
  return new Map((res.body.data as { visitor_id: string; revenue_cents: number | null }[]).map((e) => [e.visitor_id, e.revenue_cents]));
};

test("absent revenue is null and an explicit 0 is 0, whatever the event type", async () => {
  const link = await insertLink(app.t, app.accountId);
  const sent = [
    pageView(link, "conversion-without", { event_type: "conversion", conversion_name: "signup" }),
    pageView(link, "conversion-zero", { event_type: "conversion", revenue_cents: 0, currency: "USD" }),
    pageView(link, "conversion-paid", { event_type: "conversion", revenue_cents: 4999, currency: "USD" }),
    pageView(link, "view-without"),
    pageView(link, "view-zero", { revenue_cents: 0 }),
    pageView(link, "custom-paid", { event_type: "custom", event_name: "tip", revenue_cents: 250 }),
  ];
  expect((await postEvents(app.t, app.key, sent)).status).toBe(202);
  expect(Object.fromEntries(await listed(link))).toEqual({
    "conversion-without": null,
    "conversion-zero": 0,
    "conversion-paid": 4999,
    "view-without": null,
    "view-zero": 0,
    "custom-paid": 250,
  });
  // Revenue totals are unchanged by absence: only the conversions' revenue counts.
  const summary = await app.t.call(`/public-api/v1/conversions/summary?link_id=${link}`, { key: app.key });
  expect(summary.body.data).toMatchObject({ total_conversions: 3, total_revenue: 49.99 });
});

/** A row as the previous version spooled it: JOURNEY_COLUMNS without has_revenue, revenue 0 when absent. */
function previousVersionRow(linkId: string, visitor: string, eventType: string, revenueCents: number) {
  const now = Date.now();
  const row = [
    crypto.randomUUID(),
    chTime(now),
    chTime(now),
    app.accountId,
    linkId,
    visitor,
    "",
    eventType,
    "",
    "https://shop.example/",
    "",
    null,
    null,
    "",
    revenueCents,
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "",
    "{}",
  ];
  expect(row).toHaveLength(JOURNEY_COLUMNS.length - 1);
  return row;
}

test("a spool written by the previous version is stored, also mixed with new rows in one chunk", async () => {
  const link = await insertLink(app.t, app.accountId);
  const spool = app.t.runtime.deps.streams.journey;
  const stored = spool.stats.flushedRecords;
  // Left on disk by the previous version (not flushed before the upgrade): one spool line.
  await spool.append([
    previousVersionRow(link, "old-conversion", "conversion", 0),
    previousVersionRow(link, "old-view", "page_view", 0),
    previousVersionRow(link, "old-paid", "custom", 300),
  ]);
  // Accepted after the upgrade, in the same segment: the flusher takes both lines in one chunk.
  expect(
    (
      await postEvents(app.t, app.key, [
        pageView(link, "new-without", { event_type: "conversion" }),
        pageView(link, "new-zero", { revenue_cents: 0 }),
      ])
    ).status,
  ).toBe(202);
  expect(Object.fromEntries(await listed(link))).toEqual({
    "old-conversion": 0,
    "old-view": null,
    "old-paid": 300,
    "new-without": null,
    "new-zero": 0,
  });
  expect(spool.stats.flushedRecords - stored).toBe(5);
});

test("migration 0210 keeps the answers of rows stored before it", async () => {
  const ch = app.t.runtime.deps.ch;
  const db = `t_rev_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const before = { ...ch, database: db, table: (name: string) => `${db}.${name}` };
  await ch.command(`CREATE DATABASE ${db}`);
  for (const m of readClickhouseMigrations(before)) if (m.version < 210) for (const s of m.statements) await ch.command(s);
  const link = crypto.randomUUID();
  const old = JOURNEY_COLUMNS.slice(0, -1);
  const values = (visitor: string, type: string, cents: number) =>
    `(generateUUIDv4(), now64(3), now64(3), {account:UUID}, {link:UUID}, '${visitor}', '', '${type}', '', '/', '', NULL, NULL, '', ${cents}, '', '', '', '', '', '', '', '', '', '{}')`;
  await ch.command(
    `INSERT INTO ${db}.journey_events (${old.join(", ")}) VALUES ${values("conversion", "conversion", 0)}, ${values("view", "page_view", 0)}, ${values("paid", "custom", 120)}`,
    { account: app.accountId, link },
  );
  for (const m of readClickhouseMigrations(before)) if (m.version === 210) for (const s of m.statements) await ch.command(s);
  const { items } = await listJourneyEvents(
    before,
    { accountId: app.accountId, linkId: link, fromMs: Date.now() - 3_600_000 },
    { page: 1, limit: 10 },
  );
  expect(Object.fromEntries(items.map((e) => [e.visitor_id, e.revenue_cents]))).toEqual({ conversion: 0, view: null, paid: 120 });
  await ch.command(`DROP DATABASE ${db}`);
});
