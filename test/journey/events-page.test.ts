// The events list of a link (server/journey/queries.ts listJourneyEvents), whose statement finds the page's
// time range first and sorts only the events from there on: every page, with events at the same instant
// across page boundaries, events dated ahead, filters and a page past the last, must be the events sent in
// the list's order (time, newest first, then event id) and the total their count. The order is taken from
// the events sent: their ids are compared as ClickHouse compares UUIDs.
import { beforeAll, expect, test } from "bun:test";
import { listJourneyEvents } from "../../server/journey/queries";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { chTime } from "../../server/storage/clickhouse/format";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";

const MIN = 60_000;
const now = Date.now();
const account = crypto.randomUUID();
const link = crypto.randomUUID();
const other = crypto.randomUUID();
const db = useClickhouseBefore(100_000);
let ch: Clickhouse;

interface Sent {
  id: string;
  link: string;
  session: string;
  type: "page_view" | "custom";
  ms: number;
}
const sent: Sent[] = [];

async function send(events: Omit<Sent, "id">[]) {
  const rows = events.map((e) => {
    const id = crypto.randomUUID();
    sent.push({ ...e, id });
    return toJourneyRow(id, now, chTime(now), account, {
      link_id: e.link,
      visitor_id: `v-${e.session}`,
      session_id: e.session,
      event_type: e.type,
      event_name: e.type === "custom" ? "add_to_cart" : undefined,
      page_url: "https://shop.example/p",
      timestamp: new Date(e.ms).toISOString(),
    });
  });
  await insertJourneyRows(ch, Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")), rows.length, crypto.randomUUID());
}

/** ClickHouse orders UUIDs by their two 64-bit halves as numbers, the second half first. */
const uuidKey = (id: string) => {
  const hex = id.replaceAll("-", "");
  return hex.slice(16) + hex.slice(0, 16);
};

function expected(fromMs: number, filter: { type?: string; session?: string } = {}) {
  return sent
    .filter(
      (e) =>
        e.link === link && e.ms >= fromMs && (!filter.type || e.type === filter.type) && (!filter.session || e.session === filter.session),
    )
    .sort((a, b) => b.ms - a.ms || (uuidKey(a.id) < uuidKey(b.id) ? -1 : uuidKey(a.id) > uuidKey(b.id) ? 1 : 0))
    .map((e) => e.id);
}

beforeAll(async () => {
  ch = db.ch;
  // Three batches: 60 events a minute apart over the last hour, 25 of them at one instant 10 minutes ago
  // (across the pages' boundaries), events dated ahead, older events before the 24h period, another link's.
  const tied = now - 10 * MIN;
  await send(
    Array.from(
      { length: 60 },
      (_, i) => ({ link, session: `s${i % 7}`, type: i % 3 ? "page_view" : "custom", ms: now - i * MIN }) as const,
    ),
  );
  await send(
    Array.from({ length: 25 }, (_, i) => ({ link, session: `t${i % 4}`, type: i % 2 ? "page_view" : "custom", ms: tied }) as const),
  );
  await send([
    { link, session: "ahead", type: "page_view", ms: now + 3 * 3_600_000 },
    ...Array.from({ length: 10 }, (_, i) => ({ link, session: "old", type: "page_view", ms: now - (30 + i) * 3_600_000 }) as const),
    ...Array.from({ length: 10 }, (_, i) => ({ link: other, session: "o", type: "page_view", ms: now - i * MIN }) as const),
  ]);
});

test("every page of every limit is the events sent in order, ties and events dated ahead included", async () => {
  const fromMs = now - 24 * 3_600_000;
  const all = expected(fromMs);
  expect(all.length).toBe(86);
  for (const limit of [1, 7, 20, 50]) {
    for (let page = 1; page <= Math.ceil(all.length / limit) + 1; page++) {
      const { items, total } = await listJourneyEvents(ch, { accountId: account, linkId: link, fromMs }, { page, limit });
      expect({ limit, page, total, ids: items.map((x) => x.id) }).toEqual({
        limit,
        page,
        total: all.length,
        ids: all.slice((page - 1) * limit, page * limit),
      });
    }
  }
});

test("filters by event type and session, and a longer period, page by page", async () => {
  const cases: [number, { type?: string; session?: string }][] = [
    [now - 24 * 3_600_000, { type: "custom" }],
    [now - 24 * 3_600_000, { session: "t1" }],
    [now - 48 * 3_600_000, {}],
  ];
  for (const [fromMs, filter] of cases) {
    const all = expected(fromMs, filter);
    for (let page = 1; page <= Math.ceil(all.length / 6) + 1; page++) {
      const { items, total } = await listJourneyEvents(
        ch,
        { accountId: account, linkId: link, fromMs },
        { page, limit: 6 },
        { eventType: filter.type, sessionId: filter.session },
      );
      expect({ filter, page, total, ids: items.map((x) => x.id) }).toEqual({
        filter,
        page,
        total: all.length,
        ids: all.slice((page - 1) * 6, page * 6),
      });
    }
  }
});
