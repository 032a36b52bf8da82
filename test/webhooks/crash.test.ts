// Deliveries survive a crash: the server runs as a child process (`bun server/main.ts`, its own DATA_DIR),
// is killed with SIGKILL while deliveries are due and in flight, and after a restart every one arrives,
// without waiting for the leases the dead process held (the restarted instance releases its own).
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { join } from "node:path";
import { preparePostgres, sharedStoresEnv } from "../helpers/stores";
import { freePort, spawnServer } from "../helpers/server-process";
import { startReceiver, verifyStandardSignature } from "./receiver";
import { LEASE_SECONDS } from "../../server/webhooks/dispatcher";
import { processTempDir } from "../helpers/temp-dirs";

const ADMIN_TOKEN = "crash-test-admin-token-0123456789";
const children: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && !c.killed) c.kill("SIGKILL");
});

async function startServer(dataDir: string, port: number, stores: Record<string, string>) {
  const child = spawnServer({
    ...stores,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    ADMIN_TOKEN,
    LOG_LEVEL: "error",
    WEBHOOK_ALLOW_INSECURE: "true",
    WEBHOOK_RETRY_DELAYS_MS: "50,100",
  });
  children.push(child);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child;
    } catch {}
    if (Date.now() > deadline) throw new Error("server did not start");
    await Bun.sleep(100);
  }
}

test("a kill -9 while deliveries are due loses none: after restart every delivery arrives before the dead process's leases run out", async () => {
  const dataDir = processTempDir("svc-webhook-crash-");
  const databaseUrl = await preparePostgres(dataDir);
  const stores = await sharedStoresEnv(databaseUrl);
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const admin = async (method: string, path: string, json?: unknown) =>
    (
      await fetch(`${base}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: json ? JSON.stringify(json) : undefined,
      })
    ).json() as Promise<any>;

  // Before the crash: each first attempt fails (500), each second attempt hangs until the process dies.
  const seen = new Set<string>();
  const receiver = startReceiver((r) => {
    const id = r.headers.get("webhook-id")!;
    if (seen.has(id)) return new Promise<Response>(() => {});
    seen.add(id);
    return new Response("try again", { status: 500 });
  });
  try {
    let server = await startServer(dataDir, port, stores);
    const account = (await admin("POST", "/accounts", { name: "crash", tier: "scale" })).data;
    const key = (await admin("POST", `/accounts/${account.id}/keys`, { name: "k", scopes: ["webhooks:read", "webhooks:write"] })).data.key;
    const hook = (await (
      await fetch(`${base}/public-api/v1/webhooks`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url, events: ["team.member_added"] }),
      })
    ).json()) as any;
    const secret = hook.data.secret;
    const emails = Array.from({ length: 5 }, (_, i) => `member${i}@example.com`);
    for (const email of emails) await admin("POST", `/accounts/${account.id}/members`, { email, role: "member" });
    await receiver.waitFor((all) => all.length >= 10, 20_000); // 5 failed first attempts, 5 hanging second ones

    server.kill("SIGKILL");
    await server.exited;
    const beforeRestart = receiver.received.length;
    // When each hanging attempt's lease runs out: read from Postgres (a server), where it also names the
    // instance that held it; embedded, bounded by its attempt's start plus the lease.
    const leaseEnds = new Map<string, number>();
    if (databaseUrl) {
      const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      const leased = await sql<{ id: string; locked_by: string; locked_until: Date }[]>`
        select id::text, locked_by::text, locked_until from webhook_deliveries where locked_until is not null`;
      await sql.end();
      expect(leased.length).toBe(5);
      const instanceId = readFileSync(join(dataDir, "instance-id"), "utf8").trim();
      for (const row of leased) {
        expect(row.locked_by).toBe(instanceId);
        leaseEnds.set(row.id, row.locked_until.getTime());
      }
    } else {
      // Each id's last receipt before the kill is its hanging attempt.
      for (const r of receiver.received) leaseEnds.set(r.headers.get("webhook-id")!, r.at + LEASE_SECONDS * 1000);
    }

    receiver.respond = () => new Response("ok");
    server = await startServer(dataDir, port, stores);
    const arrived = () => new Set(receiver.received.slice(beforeRestart).map((r) => r.json.data.email));
    await receiver.waitFor(() => arrived().size === emails.length, 60_000);
    expect([...arrived()].sort()).toEqual(emails);
    for (const r of receiver.received.slice(beforeRestart)) {
      expect(verifyStandardSignature(secret, r)).toBe(true);
      // Retried at once after the restart, not when the dead process's lease ran out.
      const id = r.headers.get("webhook-id")!;
      expect({ id, beforeLeaseEnd: r.at < leaseEnds.get(id)! }).toEqual({ id, beforeLeaseEnd: true });
    }

    const listDeliveries = async () =>
      ((await (await fetch(`${base}/public-api/v1/webhooks/${hook.data.id}/deliveries`, { headers: { "x-api-key": key } })).json()) as any)
        .data as any[];
    let list = await listDeliveries();
    for (const deadline = Date.now() + 10_000; list.some((d) => d.status !== "delivered") && Date.now() < deadline; await Bun.sleep(50)) {
      list = await listDeliveries(); // the receiver answers a moment before the outcome is recorded
    }
    expect(list.length).toBe(5);
    for (const d of list) expect(d).toMatchObject({ status: "delivered", attempt_number: 2, http_status: 200 });
    expect(new Set(receiver.received.map((r) => r.headers.get("webhook-id"))).size).toBe(5);

    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  } finally {
    receiver.stop();
  }
}, 240_000);
