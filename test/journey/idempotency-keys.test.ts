// Idempotency keys in the shared store (process memory, or Redis in CI's servers pass): pending until
// the batch is stored, then done; a restarted instance settles what its previous process left pending.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { IdempotencyKeys, PENDING_TTL_MS } from "../../server/journey/idempotency/keys";

const WINDOW = 300_000;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const key = (name: string) => `idem:test:${crypto.randomUUID()}:${name}`;

test("claimed once; pending for every other claim until done; released keys can be claimed again", async () => {
  const kv = t.runtime.deps.kv;
  const a = new IdempotencyKeys(kv, crypto.randomUUID(), WINDOW);
  const b = new IdempotencyKeys(kv, crypto.randomUUID(), WINDOW);
  const k = key("x");
  expect(await a.claim(k)).toBe("claimed");
  expect(await b.claim(k)).toBe("pending");
  expect(await a.claim(k)).toBe("pending"); // the same process, a concurrent repeat
  await a.done(k);
  expect(await b.claim(k)).toBe("done");

  const r = key("released");
  expect(await a.claim(r)).toBe("claimed");
  await a.release(r);
  expect(await b.claim(r)).toBe("claimed");
  await b.release(r);
  expect(PENDING_TTL_MS).toBeLessThan(WINDOW);
});

test("a restarted process settles its predecessor's pending keys: done if the spool recovered the batch, else gone; other instances' keys untouched", async () => {
  const kv = t.runtime.deps.kv;
  const instance = crypto.randomUUID();
  const before = new IdempotencyKeys(kv, instance, WINDOW); // the process that died
  const other = new IdempotencyKeys(kv, crypto.randomUUID(), WINDOW); // another instance, alive
  const [stored, lost, doneBefore, othersKey] = [key("stored"), key("lost"), key("done"), key("other")];
  for (const k of [stored, lost, doneBefore]) expect(await before.claim(k)).toBe("claimed");
  await before.done(doneBefore);
  expect(await other.claim(othersKey)).toBe("claimed");

  const after = new IdempotencyKeys(kv, instance, WINDOW); // the same instance (same DATA_DIR), restarted
  const now = Date.now();
  // The journal: `stored`'s batch is in the recovered spool, and so is an older batch whose key expired.
  const expired = key("expired");
  const settled = await after.settle(
    [
      { key: stored, expiresAt: now + WINDOW },
      { key: expired, expiresAt: now - 1 },
    ],
    now,
  );
  expect(settled).toEqual({ done: 1, removed: 1 });
  expect(await after.claim(stored)).toBe("done");
  expect(await after.claim(doneBefore)).toBe("done");
  expect(await after.claim(lost)).toBe("claimed"); // the client's retry is stored
  expect(await after.claim(othersKey)).toBe("pending");
  expect(await after.claim(expired)).toBe("claimed");
  // A second settle (another restart) leaves this process's own pending keys alone.
  expect(await after.settle([], Date.now())).toEqual({ done: 0, removed: 0 });
  expect(await other.claim(lost)).toBe("pending");
});
