// The time-to-convert report from its in-memory index (server/conversions/time-to-convert-index.ts): its
// buckets, average and median must equal what the events and clicks sent give (computed here from them),
// for periods of 1 to 90 days, the whole account and one link — with the open hour's first conversions,
// a click in the open hour of an indexed visitor measured from their first event, and events dated
// ahead (the index answers), and a late click, a late conversion, a batch across the hour's start and an
// erasure with late events at once (it stops answering until the job loads it again; the report stays
// exact meanwhile), and before and after OPTIMIZE … FINAL.
import { beforeAll, expect, test } from "bun:test";
import { getTimeToConvert, type Scope } from "../../server/conversions/queries";
import { indexedTimeToConvert, kthOf } from "../../server/conversions/time-to-convert-index";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { insertEvents, type SentEvent } from "./helpers";

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const openHour = Math.floor(now / HOUR) * HOUR;
const account = crypto.randomUUID();
const shop = crypto.randomUUID();
const blog = crypto.randomUUID();

const db = useClickhouseBefore(100_000);
let ch: Clickhouse;
beforeAll(() => {
  ch = db.ch;
});

const sent: SentEvent[] = [];
const clicks: { link: string; id: string; ms: number }[] = [];
async function send(events: SentEvent[], chunk = events.length) {
  await insertEvents(ch, account, events, chunk);
  sent.push(...events);
}
/** Clicks as the redirect writes them: the click id is the visitor id the tracker then sends. */
async function click(rows: { link: string; id: string; ms: number }[]) {
  const blank = { domain: "", visitor_hash: 1, is_bot: 0, bot_kind: "", device_type: "", browser: "", browser_version: "", os: "" };
  const more = { os_version: "", country_code: "", region: "", city: "", referrer: "", referrer_url: "", language: "", query: "" };
  await ch.insert(
    "clicks",
    rows.map((r) => ({ click_id: r.id, timestamp: r.ms, account_id: account, link_id: r.link, ...blank, ...more })),
  );
  clicks.push(...rows);
}

function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}
const uuidOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
const ev = (link: string, visitor: string, type: SentEvent["type"], ms: number): SentEvent => ({
  link,
  visitor,
  type,
  ms,
  device: "",
  country: "",
});

/** What the events and clicks sent give from hour h, as the report defines it. */
function expected(links: string[], h: number) {
  const first = new Map<string, { touch: number; conv: number; link: string; visitor: string }>();
  for (const e of sent) {
    if (!links.includes(e.link)) continue;
    const k = `${e.link}/${e.visitor}`;
    const p = first.get(k) ?? { touch: Infinity, conv: Infinity, link: e.link, visitor: e.visitor };
    p.touch = Math.min(p.touch, e.ms);
    if (e.type === "conversion") p.conv = Math.min(p.conv, e.ms);
    first.set(k, p);
  }
  const spans: number[] = [];
  for (const p of first.values()) {
    if (p.conv === Infinity || p.conv < h) continue;
    const clicked = clicks.filter((c) => c.link === p.link && c.id === p.visitor).map((c) => c.ms);
    const from = clicked.length ? Math.min(...clicked) : p.touch;
    spans.push(Math.max(0, p.conv - from) / 1000);
  }
  spans.sort((a, b) => a - b);
  const counts = [0, 0, 0, 0];
  for (const s of spans) counts[s < 3600 ? 0 : s < 86_400 ? 1 : s < 604_800 ? 2 : 3]++;
  const pos = (spans.length - 1) / 2;
  const median = spans.length ? spans[Math.floor(pos)] + (pos % 1) * (spans[Math.ceil(pos)] - spans[Math.floor(pos)]) : 0;
  return { counts, average: spans.length ? spans.reduce((a, b) => a + b, 0) / spans.length : 0, median, n: spans.length };
}

const periodStarts = () => [1, 7, 30, 90].map((days) => Math.floor((Date.now() - days * DAY) / HOUR) * HOUR);
const scopes = [
  [null, [shop, blog]],
  [shop, [shop]],
] as const;

type Figures = { counts: number[]; averageSeconds: number; medianSeconds: number };
function expectFigures(got: Figures, want: ReturnType<typeof expected>, what: unknown) {
  expect({ what, counts: got.counts }).toEqual({ what, counts: want.counts });
  expect(got.averageSeconds).toBeCloseTo(want.average, 3);
  expect(got.medianSeconds).toBeCloseTo(want.median, 3);
}

/** Every period and scope as sent; `indexed`: whether the index must have answered (of the account's scope, or of every scope). */
async function expectExact(every: boolean | "not the account's", step = "") {
  for (const h of periodStarts()) {
    for (const [link, links] of scopes) {
      const want = expected([...links], h);
      const answered = await indexedTimeToConvert(ch, { accountId: account, linkId: link }, h);
      const indexed = every === "not the account's" ? link !== null : every;
      expect({ step, h, link, indexed: answered !== null }).toEqual({ step, h, link, indexed });
      if (answered) expectFigures(answered, want, { h, link, indexed: true });
      const scope: Scope = { accountId: account, fromMs: h, ...(link ? { linkIds: [link] } : {}) };
      expectFigures(await getTimeToConvert(ch, scope), want, { h, link });
    }
  }
}

test("the median walk skips removed values and takes added ones in order", () => {
  const sorted = Float64Array.from([1, 2, 2, 5, 9]);
  // Without one 2 and the 9, with 0 and 7: [0, 1, 2, 5, 7].
  expect([0, 1, 2, 3, 4].map((k) => kthOf(sorted, [2, 9], [0, 7], k))).toEqual([0, 1, 2, 5, 7]);
});

test("the index answers exactly once loaded, with first conversions, a click and events dated ahead in the open hour", async () => {
  const r = random(3);
  const events: SentEvent[] = [];
  for (let i = 0; i < 800; i++) {
    const visitor = uuidOf(Math.floor(r() * r() * 500));
    const link = r() < 0.7 ? shop : blog;
    const ms = Math.floor(openHour - MIN - r() * 95 * DAY);
    events.push(ev(link, visitor, "page_view", ms));
    if (r() < 0.35) events.push(ev(link, visitor, "conversion", Math.min(openHour - 1, ms + Math.floor(r() * 10 * DAY))));
  }
  await send(events, 300);
  // Clicks before the first events of some visitors, and after the first conversion of one.
  const converters = [...new Set(events.filter((e) => e.type === "conversion").map((e) => `${e.link}/${e.visitor}`))];
  await click(
    converters.slice(0, 40).map((k, i) => {
      const [link, id] = k.split("/");
      const firstMs = Math.min(...events.filter((e) => e.link === link && e.visitor === id).map((e) => e.ms));
      return { link, id, ms: i === 0 ? openHour - 30 * MIN : firstMs - (i + 1) * MIN };
    }),
  );
  // The click of a visitor first seen in the open hour (below), made before the index is loaded.
  await click([{ link: shop, id: uuidOf(9001), ms: openHour - 2 * MIN }]);
  await expectExact(false, "step 1");
  await refreshJourneyReports(ch);
  await expectExact(true, "step 2");
  // The open hour: a new visitor converting, an old visitor's first conversion, an indexed converter
  // converting again, a click of an indexed converter measured from their first event, events dated ahead.
  const indexedUnclicked = converters.slice(50, 51)[0].split("/");
  await send(
    [
      ev(shop, "new-1", "page_view", openHour + 1000),
      ev(shop, "new-1", "conversion", Math.max(openHour + 2000, now - MIN)),
      ev(blog, events[0].visitor, "conversion", Math.max(openHour + 3000, now - MIN)),
      ev(converters[5].split("/")[0], converters[5].split("/")[1], "conversion", openHour + 4000),
      ev(shop, "ahead", "page_view", openHour + 2 * DAY),
      ev(shop, "ahead", "conversion", openHour + 2 * DAY + 5 * MIN),
    ],
    2,
  );
  await click([{ link: indexedUnclicked[0], id: indexedUnclicked[1], ms: Math.max(openHour + 10, now - 2 * MIN) }]);
  // A visitor who came through a click of the last closed hour, first seen and converting in the open one.
  await send([
    ev(shop, uuidOf(9001), "page_view", openHour + 500),
    ev(shop, uuidOf(9001), "conversion", Math.max(openHour + 600, now - MIN)),
  ]);
  await expectExact(true, "step 3");
}, 120_000);

test("a late click, a late conversion and a batch across the hour's start stop the index until the job loads it", async () => {
  const converted = sent.find((e) => e.type === "conversion" && e.ms < openHour - 3 * DAY && !clicks.some((c) => c.id === e.visitor));
  await click([{ link: converted?.link as string, id: converted?.visitor as string, ms: openHour - 2 * DAY }]);
  await expectExact(false, "step 4");
  await refreshJourneyReports(ch);
  await expectExact(true, "step 5");
  await send([ev(shop, uuidOf(7), "conversion", openHour - 20 * DAY)]);
  await expectExact(false, "step 6");
  await refreshJourneyReports(ch);
  await expectExact(true, "step 7");
  // One batch: a visitor's first event in the last closed hour, their conversion in the open one.
  await send([ev(blog, "across", "page_view", openHour - 10 * MIN), ev(blog, "across", "conversion", Math.max(openHour, now - MIN))]);
  // The shop's index holds: the batch is another link's.
  await expectExact("not the account's", "step 8");
  await refreshJourneyReports(ch);
  await expectExact(true, "step 9");
}, 120_000);

test("OPTIMIZE … FINAL changes nothing, and an erasure with a late event at once stops the index", async () => {
  for (const table of ["journey_events", "journey_event_bundles", "journey_first_touch", "journey_conversion_times"] as const) {
    await ch.command(`OPTIMIZE TABLE ${ch.table(table)} FINAL`);
  }
  await expectExact(true, "step 10");
  const erased = sent.find((e) => e.type === "conversion" && e.ms < openHour - 2 * DAY && e.link === shop)?.visitor as string;
  for (const [table, where] of [
    ["journey_events", "visitor_id = {v:String}"],
    ["journey_event_bundles", "vh = cityHash64({v:String})"],
    ["journey_first_touch", "visitor_id = {v:String}"],
    ["journey_conversion_times", "visitor_id = {v:String}"],
  ] as const) {
    await ch.command(`ALTER TABLE ${ch.table(table)} DELETE WHERE ${where} SETTINGS mutations_sync = 2`, { v: erased });
  }
  sent.splice(0, sent.length, ...sent.filter((e) => e.visitor !== erased));
  await send([ev(blog, "late3", "conversion", openHour - 4 * DAY)]);
  await expectExact(false, "step 11");
  await refreshJourneyReports(ch);
  await expectExact(true, "step 12");
}, 120_000);
