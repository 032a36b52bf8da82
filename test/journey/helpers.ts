// Shared by the journey and conversion tests: links inserted straight into Postgres, event builders.
import { afterAll, beforeAll } from "bun:test";
import { links } from "../../server/storage/postgres/schema";
import { createTestApp, type TestApp } from "../helpers/app";

export async function insertLink(t: TestApp, accountId: string): Promise<string> {
  const [row] = await t.runtime.deps.pg.db
    .insert(links)
    .values({ accountId, shortCode: `j${crypto.randomUUID().slice(0, 12)}`, originalUrl: "https://example.com/landing" })
    .returning({ id: links.id });
  return row.id;
}

export const pageView = (linkId: string, visitorId: string, extra: Record<string, unknown> = {}) => ({
  link_id: linkId,
  visitor_id: visitorId,
  event_type: "page_view",
  page_url: "https://shop.example/",
  ...extra,
});

export const MIN = 60_000;
/** The start of the 24h period of a report asked at `nowMs`: periods are whole UTC hours. */
export const dayPeriodStart = (nowMs: number) => Math.floor((nowMs - 24 * 60 * MIN) / (60 * MIN)) * 60 * MIN;
export const at = (ms: number) => new Date(ms).toISOString();

/** ISO time `minutesAgo` minutes before now. */
export const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

export async function postEvents(t: TestApp, key: string, events: unknown[], headers: Record<string, string> = {}) {
  return t.call("/public-api/v1/journey/events", { method: "POST", key, json: { events }, headers });
}

/**
 * A test app with an account's key and a link, whose journey_sessions_v2 never merges: the parts of a
 * session stay apart, as ClickHouse may leave them, for the reports to combine.
 */
export async function appWithUnmergedSessions(): Promise<{ t: TestApp; key: string; link: string }> {
  const t = await createTestApp();
  const acc = await t.createAccount();
  const link = await insertLink(t, acc.accountId);
  await t.runtime.deps.ch.command(`SYSTEM STOP MERGES ${t.runtime.deps.ch.table("journey_sessions_v2")}`);
  return { t, key: acc.key, link };
}

/** For the tests of a file: a test app and one account of it, made before them and closed after them. */
export function useAppWithAccount(): { t: TestApp; key: string; accountId: string } {
  const app = {} as { t: TestApp; key: string; accountId: string };
  beforeAll(async () => {
    app.t = await createTestApp();
    ({ key: app.key, accountId: app.accountId } = await app.t.createAccount());
  }, 60_000);
  afterAll(() => app.t.close());
  return app;
}
