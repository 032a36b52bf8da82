import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { childEnv, freshClickhouseDatabase, testClickhouseUrl } from "../helpers/stores";
import { processTempDir } from "../helpers/temp-dirs";

const WRITER = join(import.meta.dir, "..", "fixtures", "spool-writer.ts");
// The writer's ClickHouse: embedded in its directory, or the servers pass's server (one database for every run).
const writerEnv = childEnv(testClickhouseUrl ? { CLICKHOUSE_URL: testClickhouseUrl, CLICKHOUSE_DATABASE: freshClickhouseDatabase() } : {});

/** Runs the writer until `ms` after its first acknowledgement, then SIGKILLs it; returns the last acknowledged sequence number. */
async function runAndKill(dir: string, start: number, ms: number): Promise<number> {
  const child = Bun.spawn([process.execPath, WRITER, dir, "write", String(start)], { env: writerEnv, stdout: "pipe", stderr: "inherit" });
  let acked = start;
  let buffer = "";
  const reader = (async () => {
    for await (const chunk of child.stdout) {
      buffer += new TextDecoder().decode(chunk);
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith("ack ")) acked = Number(line.slice(4));
    }
  })();
  // The kill timer starts once the child is up and acknowledging (start-up replays the spool first).
  for (let waited = 0; acked === start && waited < 30_000; waited += 20) await Bun.sleep(20);
  await Bun.sleep(ms);
  child.kill("SIGKILL");
  await child.exited;
  await reader;
  return acked;
}

test("kill -9 in the middle of a stream of appends: every acknowledged record is in ClickHouse exactly once", async () => {
  const dir = processTempDir("svc-spool-crash-");
  // Run i numbers its records from i × 10,000,000 + 1; everything up to its last "ack" must arrive.
  // Records written but not acknowledged before a kill may arrive too (at most once): allowed.
  const ranges: [number, number][] = [];
  const ids = new Set<string>();
  for (const [i, ms] of [2500, 1800, 2200].entries()) {
    const start = i * 10_000_000;
    const acked = await runAndKill(dir, start, ms);
    expect(acked).toBeGreaterThan(start);
    ranges.push([start + 1, acked]);
    ids.add(JSON.parse(readFileSync(join(dir, "spool", "spool-id.json"), "utf8")).id);
  }
  expect(ids.size).toBe(1); // every replay sends the tokens of the same spool id
  const counted = Bun.spawnSync([process.execPath, WRITER, dir, "count", JSON.stringify(ranges)], { env: writerEnv, stderr: "inherit" });
  const { rows, distinct, present } = JSON.parse(counted.stdout.toString().trim().split("\n").pop()!);
  expect(rows).toBe(distinct); // nothing twice
  expect(present).toEqual(ranges.map(([lo, hi]) => hi - lo + 1)); // every acknowledged record
}, 120_000);
