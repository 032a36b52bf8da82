// ClickHouse migrations 0220 and 0221 on a database that already holds clicks: the old rows read as
// source 'link', no variant, no rule, and the new per-target aggregate starts with them (backfilled once).
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openClickhouse } from "../../server/storage/clickhouse/client";
import { applyClickhouseMigrations } from "../../server/storage/clickhouse/migrate";
import { sharedChdb } from "../helpers/stores";

test("0220 and 0221 keep and count the clicks stored before them", async () => {
  const database = `t_mig_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const ch = await openClickhouse({ database, dataDir: mkdtempSync(join(tmpdir(), "svc-mig-")), sharedClient: await sharedChdb() });
  // Back to the schema before 0220: no new columns, no per-target aggregate, not recorded as applied.
  await ch.command(`DROP TABLE ${ch.table("clicks_daily_targets_mv")}`);
  await ch.command(`DROP TABLE ${ch.table("clicks_daily_targets")}`);
  await ch.command(`ALTER TABLE ${ch.table("clicks")} DROP COLUMN source, DROP COLUMN variant, DROP COLUMN rule`);
  await ch.command(`ALTER TABLE ${ch.table("schema_migrations")} DELETE WHERE version IN (220, 221) SETTINGS mutations_sync = 1`);
  const account = crypto.randomUUID();
  const link = crypto.randomUUID();
  const old = (i: number, bot: number) => ({
    click_id: crypto.randomUUID(),
    timestamp: Date.now() - i * 1000,
    account_id: account,
    link_id: link,
    visitor_hash: String(1000 + i),
    is_bot: bot,
  });
  await ch.insert("clicks", [old(1, 0), old(2, 0), old(3, 1)]);

  await applyClickhouseMigrations(ch);
  const rows = await ch.query<{ source: string; variant: string; rule: number }>(
    `SELECT DISTINCT source, variant, rule FROM ${ch.table("clicks")} WHERE link_id = {l:UUID}`,
    { l: link },
  );
  expect(rows).toEqual([{ source: "link", variant: "", rule: 0 }]);
  const counted = async () =>
    (
      await ch.query<{ human: string; bot: string; v: string }>(
        `SELECT sumIf(clicks, is_bot = 0) AS human, sumIf(clicks, is_bot = 1) AS bot, uniqCombinedMergeIf(14)(visitors, is_bot = 0) AS v
       FROM ${ch.table("clicks_daily_targets")} WHERE link_id = {l:UUID} AND source = 'link'`,
        { l: link },
      )
    ).map((r) => [Number(r.human), Number(r.bot), Number(r.v)]);
  expect(await counted()).toEqual([[2, 1, 2]]);
  // New clicks reach the aggregate through the view; the backfill does not run twice.
  await ch.insert("clicks", [old(4, 0)]);
  await ch.command(`ALTER TABLE ${ch.table("schema_migrations")} DELETE WHERE version = 221 SETTINGS mutations_sync = 1`);
  await applyClickhouseMigrations(ch);
  expect(await counted()).toEqual([[3, 1, 3]]);
  await ch.command(`DROP DATABASE ${database}`);
});
