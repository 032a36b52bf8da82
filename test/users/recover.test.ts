// The way back in after the README's two commands (`npm install && npm start`: embedded stores, no SMTP
// server, no ADMIN_TOKEN): `npm run recover -- EMAIL` prints a password reset link, `npm run recover` an
// owner setup link. Run as an operator would, against the data of a real server process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, spawnServer } from "../helpers/server-process";
import { childEnv } from "../helpers/stores";

const ROOT = join(import.meta.dir, "..", "..");
const PASSWORD = "correct horse battery";
const dataDir = mkdtempSync(join(tmpdir(), "svc-recover-"));
const port = freePort();
const url = `http://127.0.0.1:${port}`;
// What `npm start` sees after the README's commands: no ADMIN_TOKEN, no SMTP; only where and which port.
const env = { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", BASE_URL: url, LOG_LEVEL: "error" };
let server: Subprocess | null = null;
const log: string[] = [];

async function start() {
  server = spawnServer(env, log);
  for (let i = 0; i < 1200; i++) {
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}: ${log.join("\n")}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await Bun.sleep(50);
  }
  throw new Error("server did not start");
}
async function stop() {
  server?.kill("SIGTERM");
  await server?.exited;
  server = null;
}
const recover = (...args: string[]) => recoverWith({}, ...args);
async function recoverWith(extraEnv: Record<string, string>, ...args: string[]) {
  const proc = Bun.spawn(["npm", "run", "--silent", "recover", "--", ...args], {
    cwd: ROOT,
    env: childEnv({ ...env, ...extraEnv }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { out, err, code };
}
const auth = (path: string, json: unknown) =>
  fetch(`${url}/console/api/auth${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify(json),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
const tokenOf = (link: string) => link.slice(link.indexOf("#") + 1);
const linkIn = (text: string) => text.match(/https?:\/\/\S+\/console\/(reset|setup)#\S+/)?.[0] ?? "";

beforeAll(async () => {
  await start();
  const setup = linkIn(log.find((l) => l.includes("/console/setup#")) ?? "");
  expect(setup).not.toBe("");
  expect((await auth("/accept-invitation", { token: tokenOf(setup), email: "owner@example.com", password: PASSWORD })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run recover", () => {
  test("refuses while the embedded server runs, naming what to do", async () => {
    const r = await recover("owner@example.com");
    expect(r.code).toBe(1);
    expect(r.err).toContain("Stop it (Ctrl-C)");
  }, 60_000);

  test("refuses while the server runs even when BASE_URL is a public name this machine does not reach", async () => {
    // Behind a proxy BASE_URL is the public address; the server still listens on PORT here. Opening the
    // embedded database beside the running server would corrupt it.
    const r = await recoverWith({ BASE_URL: "https://short.invalid" }, "owner@example.com");
    expect(r.code).toBe(1);
    expect(r.err).toContain("Stop it (Ctrl-C)");
  }, 60_000);

  test("with the owner's email: a reset link that sets a new password after the restart", async () => {
    await stop();
    const unknown = await recover("nobody@example.com");
    expect({ code: unknown.code, err: unknown.err.trim() }).toEqual({
      code: 1,
      err: "No user has the email nobody@example.com. Run without an email for an owner setup link.",
    });
    const r = await recover("Owner@Example.com");
    expect(r.code).toBe(0);
    const link = linkIn(r.out);
    expect(link).toStartWith(`${url}/console/reset#`);
    await start();
    expect((await auth("/password-reset/confirm", { token: tokenOf(link), password: "a brand new passphrase" })).status).toBe(200);
    expect((await auth("/sign-in", { email: "owner@example.com", password: PASSWORD })).status).toBe(401);
    expect((await auth("/sign-in", { email: "owner@example.com", password: "a brand new passphrase" })).status).toBe(200);
  }, 120_000);

  test("without an email: an owner setup link, for a lost setup link or a forgotten email", async () => {
    await stop();
    const r = await recover();
    expect(r.code).toBe(0);
    const link = linkIn(r.out);
    expect(link).toStartWith(`${url}/console/setup#`);
    await start();
    const accepted = await auth("/accept-invitation", { token: tokenOf(link), email: "second@example.com", password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.role).toBe("owner");
  }, 120_000);
});
