// Idempotency keys survive a kill -9 of the server (no Redis: they live in process memory and in a
// journal on disk). A key counts after a restart only if its batch is in the spool the restart
// recovered: a crash between the key's write and the batch's never turns a lost batch into a
// "Batch already processed".
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IdempotencyJournal } from "../../server/journey/idempotency/journal";
import { Spool } from "../../server/ingest/spool";
import { api, provision, serverProcess } from "../helpers/server-process";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "svc-journal-"));
  dirs.push(d);
  return d;
};

test("a batch answered 202 before a kill -9 is answered already_processed after the restart", async () => {
  const server = serverProcess();
  try {
    await server.start();
    const { key, linkId } = await provision(server.url);
    const post = (idem: string, n: number) =>
      fetch(`${server.url}/public-api/v1/journey/events`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key, "x-idempotency-key": idem },
        body: JSON.stringify({
          events: Array.from({ length: n }, (_, i) => ({
            link_id: linkId,
            visitor_id: `v${i}`,
            event_type: "custom",
            page_url: "app://a/",
          })),
        }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    expect((await post("batch-1", 3)).body.data.count).toBe(3);
    await server.kill9();
    await server.start();
    const again = await post("batch-1", 3);
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ count: 0, already_processed: true });
    expect((await post("batch-2", 2)).body.data.count).toBe(2); // other keys are not affected
    await server.stop(); // drains the spool
    await server.start();
    const summary = await api(server.url, `/public-api/v1/journey/links/${linkId}/summary?period=24h`, { key });
    expect(summary.body.data.total_events).toBe(5);
    // A second restart still knows the key (the journal carried it over).
    await server.kill9();
    await server.start();
    expect((await post("batch-1", 3)).body.data.already_processed).toBe(true);
  } finally {
    server.remove();
  }
}, 180_000);

describe("the journal", () => {
  const spoolAt = (dir: string) =>
    new Spool<number>({ dir: join(dir, "spool"), name: "t", maxUnflushedBytes: 1 << 30, sink: async () => {} });
  const WINDOW = 300_000;

  test("keeps a key whose batch was written, drops one whose batch a crash lost, and forgets on request", async () => {
    const dir = tempDir();
    const spool = spoolAt(dir);
    const { journal } = IdempotencyJournal.open(join(dir, "journal"), spool.recoveredEnd, { windowMs: WINDOW });
    const now = Date.now();
    let written: Promise<void> | undefined;
    await spool.append([1, 2, 3], { beforeWrite: (end) => void (written = journal.record("stored", now + WINDOW, end)) });
    await written;
    await spool.append([4], { beforeWrite: (end) => void journal.record("forgotten", now + WINDOW, end) });
    journal.forget("forgotten");
    // The crash between the key's write and its batch's: the key is on disk, the batch never written.
    const end = spool.recoveredEnd;
    await journal.record("lost", now + WINDOW, { segment: end.segment, offset: 1_000_000 });
    await journal.record("expired", now - 1, { segment: 0, offset: 1 });
    journal.close();

    const reopened = spoolAt(dir);
    const first = IdempotencyJournal.open(join(dir, "journal"), reopened.recoveredEnd, { windowMs: WINDOW });
    expect(first.keys.map((k) => k.key)).toEqual(["stored"]);
    expect(first.keys[0].expiresAt).toBe(now + WINDOW);
    first.journal.close();
    expect(readdirSync(join(dir, "journal"))).toHaveLength(1); // the keys that count, carried into a fresh file

    // The log grows past the lost key's position: the key must still not count.
    await reopened.append(Array.from({ length: 200_000 }, (_, i) => i));
    const second = IdempotencyJournal.open(join(dir, "journal"), spoolAt(dir).recoveredEnd, { windowMs: WINDOW });
    expect(second.keys.map((k) => k.key)).toEqual(["stored"]);
    second.journal.close();
  });

  test("a line cut short by a crash is ignored", async () => {
    const dir = tempDir();
    const { journal } = IdempotencyJournal.open(join(dir, "j"), { segment: 5, offset: 5000 }, { windowMs: WINDOW });
    await journal.record("whole", Date.now() + WINDOW, { segment: 5, offset: 10 });
    journal.close();
    const file = join(dir, "j", readdirSync(join(dir, "j"))[0]);
    await Bun.write(file, (await Bun.file(file).text()) + `torn\t${Date.now() + WINDOW}\t5\t12`); // no newline: torn
    const { journal: j2, keys } = IdempotencyJournal.open(join(dir, "j"), { segment: 5, offset: 5000 }, { windowMs: WINDOW });
    expect(keys.map((k) => k.key)).toEqual(["whole"]);
    j2.close();
  });

  test("files are replaced every window; the one before is deleted", async () => {
    const dir = join(tempDir(), "j");
    const t0 = Date.now();
    const { journal } = IdempotencyJournal.open(dir, { segment: 9, offset: 0 }, { windowMs: WINDOW, nowMs: t0 });
    await journal.record("a", t0 + WINDOW, { segment: 1, offset: 1 }, t0);
    await journal.record("b", t0 + 2 * WINDOW, { segment: 1, offset: 2 }, t0 + WINDOW);
    expect(readdirSync(dir)).toHaveLength(2);
    await journal.record("c", t0 + 3 * WINDOW, { segment: 1, offset: 3 }, t0 + 2 * WINDOW);
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    expect(existsSync(join(dir, `${t0}.log`))).toBe(false); // held only "a", expired by now
    journal.close();
    const reopened = IdempotencyJournal.open(dir, { segment: 9, offset: 0 }, { windowMs: WINDOW, nowMs: t0 + 2 * WINDOW - 1 });
    expect(reopened.keys.map((k) => k.key).sort()).toEqual(["b", "c"]);
    reopened.journal.close();
  });
});
