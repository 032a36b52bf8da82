// Shared by the journey and conversion tests: links inserted straight into Postgres, event builders.
import { links } from "../../server/storage/postgres/schema";
import type { TestApp } from "../helpers/app";

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
