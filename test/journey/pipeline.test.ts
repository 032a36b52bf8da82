// The journey flusher: spool lines of rows go to ClickHouse as they are. Text that looks like JSON
// structure is stored exactly as sent, every row is counted once, a replayed chunk adds nothing, and
// spools written in the older object form are still stored.
import { describe, expect, test } from "bun:test";
import { spoolLinesToRows, toJourneyRow } from "../../server/ingest/journey/rows";
import { journeyStream } from "../../server/ingest/journey/sink";
import { chTime } from "../../server/storage/clickhouse/format";
import { insertLink, pageView, postEvents, useAppWithAccount } from "./helpers";

const app = useAppWithAccount();

const storedMetric = async () =>
  (await app.t.runtime.deps.metrics.eventsStored.get()).values.find((v) => v.labels.stream === "journey")?.value ?? 0;
const events = async (linkId: string) => {
  await app.t.flush();
  return (await app.t.call(`/public-api/v1/journey/links/${linkId}/events?limit=100`, { key: app.key })).body.data as Record<
    string,
    unknown
  >[];
};
const total = async (linkId: string) => {
  await app.t.flush();
  return (await app.t.call(`/public-api/v1/journey/links/${linkId}/summary`, { key: app.key })).body.data.total_events as number;
};

const TRICKY = [
  "],[",
  'x"],[',
  '"],["',
  "a\\",
  '\\"],["',
  '],["',
  '"]',
  "[",
  "]",
  ",",
  "\\",
  "tab\there",
  "line\nbreak",
  "é€😀",
  '{"a":1}',
];

describe("journey rows through the spool", () => {
  test("text that looks like row boundaries is stored exactly as sent, and counted once", async () => {
    const link = await insertLink(app.t, app.accountId);
    const sent: Record<string, unknown>[] = TRICKY.map((s, i) =>
      pageView(link, `v${i}${s}`, {
        page_title: s,
        event_name: `${s}${s}`,
        session_id: s,
        city: s,
        properties: { [`k${s}`]: s, n: i },
      }),
    );
    const before = await storedMetric();
    expect((await postEvents(app.t, app.key, sent)).status).toBe(202);
    expect((await postEvents(app.t, app.key, sent.slice(0, 3))).status).toBe(202);
    const stored = await events(link);
    expect(stored).toHaveLength(TRICKY.length + 3);
    expect(await storedMetric()).toBe(before + TRICKY.length + 3);
    for (const e of sent) {
      const match = stored.filter((s) => s.visitor_id === e.visitor_id);
      expect(match.length).toBeGreaterThanOrEqual(1);
      expect(match[0]).toMatchObject({
        page_title: e.page_title,
        event_name: e.event_name,
        session_id: e.session_id,
        city: e.city,
        properties: e.properties,
      });
    }
  });

  test("the row count of spool lines is exact for any string values, in both row formats", () => {
    const alphabet = ['"', "]", ",", "[", "\\", "{", "}", "a", ":", "\n"];
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const text = () => Array.from({ length: random(8) }, () => alphabet[random(alphabet.length)]).join("");
    for (let round = 0; round < 300; round++) {
      const batches = Array.from({ length: 1 + random(4) }, () =>
        Array.from({ length: 1 + random(5) }, () => {
          const e = {
            link_id: text(),
            visitor_id: text(),
            event_type: "custom",
            page_url: text(),
            page_title: text(),
            event_name: text(),
            properties: { [text()]: text() },
          };
          const row = toJourneyRow(crypto.randomUUID(), 0, chTime(0), text(), e);
          // Rows of the previous version end with the properties string (no has_revenue).
          return random(2) ? row : row.slice(0, -1);
        }),
      );
      const buf = Buffer.from(batches.map((b) => JSON.stringify(b) + "\n").join(""));
      expect(spoolLinesToRows(buf)).toBe(batches.flat().length);
    }
  });

  test("a chunk replayed under its token adds nothing, in the events and in the rollups", async () => {
    const link = await insertLink(app.t, app.accountId);
    const { sinkRaw } = journeyStream(app.t.runtime.deps.ch);
    const now = Date.now();
    const rows = Array.from({ length: 5 }, (_, i) =>
      toJourneyRow(crypto.randomUUID(), now, chTime(now), app.accountId, pageView(link, `v${i}`)),
    );
    const chunk = `${JSON.stringify(rows.slice(0, 2))}\n${JSON.stringify(rows.slice(2))}\n`;
    const token = `journey-test-${crypto.randomUUID()}`;
    expect(await sinkRaw(Buffer.from(chunk), token)).toBe(5);
    expect(await sinkRaw(Buffer.from(chunk), token)).toBe(5);
    expect(await total(link)).toBe(5);
    expect(await events(link)).toHaveLength(5);
  });

  test("a spool holding the older object form is still stored, also mixed with rows in one chunk", async () => {
    const link = await insertLink(app.t, app.accountId);
    const spool = app.t.runtime.deps.streams.journey;
    await spool.append([
      {
        event_id: crypto.randomUUID(),
        received_at: Date.now(),
        account_id: app.accountId,
        event: pageView(link, "old", { country_code: "fr" }),
      },
    ]);
    expect((await postEvents(app.t, app.key, [pageView(link, "new")])).status).toBe(202);
    const stored = await events(link);
    expect(stored.map((e) => [e.visitor_id, e.country_code]).sort()).toEqual([
      ["new", null],
      ["old", "FR"],
    ]);
  });
});
