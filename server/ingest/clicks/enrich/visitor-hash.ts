// Unique visitors without storing addresses (Plausible's scheme): visitor_hash is a keyed hash of
// (daily salt, account, client address, user agent), truncated to 64 bits. The salt is random, one per
// UTC day, shared through Postgres (visitor_salts); making day D's salt deletes those before D-2, so
// old hashes cannot be recomputed from an address. The hash is keyed with HMAC(APP_SECRET, salt), so
// the salts in Postgres alone do not let anyone recompute a visitor's hash either.
//
// Across midnight: a click in the first 30 minutes of a UTC day keeps the previous day's hash when the
// same (account, address, agent) clicked in the last 30 minutes of the previous day, found in the same
// batch or in ClickHouse. Both sources are fixed by the time a spool chunk is (re)played, so a replay
// computes the same hashes.
import type { Postgres } from "../../../storage/postgres/client";
import type { Clickhouse } from "../../../storage/clickhouse/client";
import type { RawClick } from "../record";
import { deleteVisitorSaltsBefore, ensureVisitorSalt, findVisitorSalt } from "../repository";
import { findSeenVisitorHashes } from "../../../analytics/queries/visitors";

/** What the hasher reads and writes: the daily salts (Postgres) and earlier clicks' hashes (ClickHouse). */
export interface VisitorHashStore {
  findSalt(day: string): Promise<string | null>;
  ensureSalt(day: string, candidate: string): Promise<string>;
  deleteSaltsBefore(day: string): Promise<void>;
  findSeen(a: { accountIds: string[]; hashes: string[]; from: number; to: number }): Promise<Set<string>>;
}

export function visitorHashStore(deps: { pg: Postgres; ch: Clickhouse }): VisitorHashStore {
  return {
    findSalt: (day) => findVisitorSalt(deps.pg, day),
    ensureSalt: (day, candidate) => ensureVisitorSalt(deps.pg, day, candidate),
    deleteSaltsBefore: (day) => deleteVisitorSaltsBefore(deps.pg, day),
    findSeen: (a) => findSeenVisitorHashes(deps.ch, a),
  };
}

const DAY_MS = 86_400_000;
const CONTINUATION_MS = 30 * 60_000;
const SALT_KEEP_DAYS = 2;

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

export function visitorHash(salt: string, c: Pick<RawClick, "account_id" | "ip" | "ua">): string {
  return (Bun.CryptoHasher.hash("sha256", `${salt}\0${c.account_id}\0${c.ip}\0${c.ua}`) as Buffer).readBigUInt64BE(0).toString();
}

/** The day's hashing key: the stored salt, keyed with APP_SECRET. */
const keyedSalt = (secret: string, salt: string) => new Bun.CryptoHasher("sha256", secret).update(salt).digest("base64url");

export function createVisitorHasher(store: VisitorHashStore, secret: string) {
  const salts = new Map<string, string | null>();

  async function saltOf(day: string, create: boolean): Promise<string | null> {
    const known = salts.get(day);
    if (known) return known;
    if (!create) {
      const stored = await store.findSalt(day);
      return stored && keyedSalt(secret, stored);
    }
    const oldest = utcDay(Date.parse(day) - SALT_KEEP_DAYS * DAY_MS);
    await store.deleteSaltsBefore(oldest);
    for (const d of salts.keys()) if (d < oldest) salts.delete(d);
    const candidate = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    const salt = keyedSalt(secret, await store.ensureSalt(day, candidate));
    salts.set(day, salt);
    return salt;
  }

  /** One hash per click, in order. */
  return async function hashVisitors(clicks: RawClick[]): Promise<string[]> {
    const hashes: string[] = [];
    let saltDay = -1;
    let salt = "";
    for (const c of clicks) {
      const day = dayStart(c.ts);
      if (day !== saltDay) {
        salt = (await saltOf(utcDay(day), true))!;
        saltDay = day;
      }
      hashes.push(visitorHash(salt, c));
    }

    // Clicks early in their day, with the hash they would carry under the previous day's salt.
    const early: { index: number; prevHash: string; midnight: number }[] = [];
    const prevSalts = new Map<number, string | null>();
    for (const [index, c] of clicks.entries()) {
      const midnight = dayStart(c.ts);
      if (c.ts - midnight >= CONTINUATION_MS) continue;
      if (!prevSalts.has(midnight)) prevSalts.set(midnight, await saltOf(utcDay(midnight - DAY_MS), false));
      const prevSalt = prevSalts.get(midnight);
      if (prevSalt) early.push({ index, prevHash: visitorHash(prevSalt, c), midnight });
    }
    if (early.length === 0) return hashes;

    const seen = new Set<string>();
    clicks.forEach((c, i) => {
      const offset = dayStart(c.ts) + DAY_MS - c.ts;
      if (offset <= CONTINUATION_MS) seen.add(`${dayStart(c.ts) + DAY_MS}|${hashes[i]}`);
    });
    for (const midnight of new Set(early.map((e) => e.midnight))) {
      const group = early.filter((e) => e.midnight === midnight);
      const stored = await store.findSeen({
        accountIds: [...new Set(group.map((e) => clicks[e.index].account_id))],
        hashes: group.map((e) => e.prevHash),
        from: midnight - CONTINUATION_MS,
        to: midnight,
      });
      for (const h of stored) seen.add(`${midnight}|${h}`);
    }
    for (const e of early) if (seen.has(`${e.midnight}|${e.prevHash}`)) hashes[e.index] = e.prevHash;
    return hashes;
  };
}
