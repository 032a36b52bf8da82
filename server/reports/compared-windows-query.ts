// The compared-window store (migration 0290) and the fingerprint of a window's source rows; every value is bound.
import type { Clickhouse } from "../storage/clickhouse/client";
import { chTime } from "../storage/clickhouse/format";
import { DAY_MS } from "./period";
import type { Window } from "./compare";

const KEY = "account_id = {account:UUID} AND report = {report:String} AND key = {key:String}";

/** The latest stored answer of a compared window, or undefined. */
export async function readComparedWindow(ch: Clickhouse, accountId: string, report: string, key: string) {
  const [row] = await ch.query<{ fingerprint: string; answer: string }>(
    `SELECT fingerprint, answer FROM ${ch.table("compared_windows")} WHERE ${KEY} ORDER BY computed_at DESC LIMIT 1`,
    { account: accountId, report, key },
  );
  return row;
}

export async function storeComparedWindow(
  ch: Clickhouse,
  row: { accountId: string; report: string; key: string; fingerprint: string; answer: string },
) {
  await ch.insert("compared_windows", [
    {
      account_id: row.accountId,
      report: row.report,
      key: row.key,
      fingerprint: row.fingerprint,
      answer: row.answer,
      computed_at: chTime(Date.now()),
    },
  ]);
}

/**
 * The fingerprint of the journey events a window's reports read: the event bundles (migration 0207) that
 * can hold an event of [fromMs, toMs) — a bundle is one batch's events of one UTC day, so those ending from
 * fromMs to a day after toMs — of the account, or of `linkIds`. Count, sum of visitor hashes and sum of
 * end times: a late event adds a bundle row (merges and replayed chunks add none), an erasure removes
 * some, and an erasure and late events of as many rows at once still move the sums (read as text: they
 * pass 2^53).
 */
export async function bundlesFingerprint(ch: Clickhouse, accountId: string, linkIds: readonly string[] | undefined, w: Window) {
  const [row] = await ch.query<{ fp: [string, string, string] }>(
    `SELECT (${FINGERPRINT(ch, linkIds)}) AS fp`,
    fingerprintParams(accountId, linkIds, w),
  );
  return fingerprintOf(row?.fp);
}

const FINGERPRINT = (ch: Clickhouse, linkIds: readonly string[] | undefined) => `
    SELECT (count(), toString(sum(vh)), toString(sum(toUnixTimestamp64Milli(ended))))
    FROM ${ch.table("journey_event_bundles")}
    WHERE account_id = {account:UUID}${linkIds ? " AND link_id IN {links:Array(UUID)}" : ""}
      AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ended < fromUnixTimestamp64Milli({end:Int64}, 'UTC')`;
const fingerprintParams = (accountId: string, linkIds: readonly string[] | undefined, w: Window) => ({
  account: accountId,
  links: linkIds ?? [],
  from: w.fromMs,
  end: w.toMs + DAY_MS,
});
const fingerprintOf = (fp: [string | number, string, string] | undefined) => `bundles:${fp?.[0] ?? 0}:${fp?.[1] ?? 0}:${fp?.[2] ?? 0}`;

/** bundlesFingerprint and readComparedWindow in one statement (one round trip). */
export async function readWithBundlesFingerprint(
  ch: Clickhouse,
  accountId: string,
  linkIds: readonly string[] | undefined,
  w: Window,
  report: string,
  key: string,
) {
  const [row] = await ch.query<{ fp: [string, string, string]; stored: [string, string][] }>(
    `SELECT (${FINGERPRINT(ch, linkIds)}) AS fp,
      (SELECT groupArray((fingerprint, answer)) FROM (
        SELECT fingerprint, answer FROM ${ch.table("compared_windows")} WHERE ${KEY} ORDER BY computed_at DESC LIMIT 1)) AS stored`,
    { ...fingerprintParams(accountId, linkIds, w), report, key },
  );
  const [stored] = row?.stored ?? [];
  return { fingerprint: fingerprintOf(row?.fp), stored: stored ? { fingerprint: stored[0], answer: stored[1] } : undefined };
}
