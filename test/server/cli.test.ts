import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_TOKEN } from "../helpers/app";
import { childEnv } from "../helpers/stores";
import { useCliServer } from "../helpers/cli";

const app = useCliServer();
const cli = app.cli;

test("--help lists the commands", async () => {
  const p = Bun.spawnSync([process.execPath, "server/cli.ts", "--help"], { env: childEnv({}) });
  expect(p.exitCode).toBe(0);
  expect(p.stdout.toString()).toContain("key create ACCOUNT_ID");
});

test("creates an account and a key that works against the API, changes the tier, revokes the key", async () => {
  const account = await cli("account", "create", "--name", "Cli Co", "--tier", "free");
  expect(account.code).toBe(0);
  const { id } = JSON.parse(account.out);
  const key = JSON.parse((await cli("key", "create", id, "--name", "ci", "--scopes", "links:read")).out);
  expect(key.key).toMatch(/^svc_/);
  expect((await fetch(`${app.url}/public-api/v1/links`, { headers: { "x-api-key": key.key } })).status).toBe(200);
  expect(JSON.parse((await cli("account", "tier", id, "pro")).out).tier).toBe("pro");
  expect(JSON.parse((await cli("key", "list", id)).out)).toHaveLength(1);
  await cli("key", "revoke", id, key.id);
  expect((await fetch(`${app.url}/public-api/v1/links`, { headers: { "x-api-key": key.key } })).status).toBe(401);
  const bad = await cli("account", "create", "--name", "x", "--tier", "gold");
  expect(bad.code).toBe(1);
  expect(bad.err).toContain("400");
});

test("limit overrides: a number sets one, none clears it, anything else is refused and changes nothing", async () => {
  const { id } = JSON.parse((await cli("account", "create", "--name", "Limits Co", "--tier", "free")).out);
  expect(JSON.parse((await cli("account", "limits", id, "--journey-limit", "5000")).out).limit_overrides).toEqual({
    journey_events_per_month: 5000,
  });
  const typo = await cli("account", "limits", id, "--journey-limit", "50k");
  expect(typo.code).toBe(1);
  expect(typo.err).toContain("50k");
  expect(JSON.parse((await cli("account", "get", id)).out).limit_overrides).toEqual({ journey_events_per_month: 5000 });
  expect(JSON.parse((await cli("account", "limits", id, "--journey-limit", "none")).out).limit_overrides).toEqual({});
});

test("the admin token can come from ADMIN_TOKEN_FILE, as the server's does (containers, Kubernetes secrets)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-cli-token-"));
  const file = join(dir, "admin-token");
  writeFileSync(file, `${ADMIN_TOKEN}\n`);
  // Asynchronous: the server answering the CLI runs in this process.
  const run = async (env: Record<string, string>) => {
    const p = Bun.spawn(
      [process.execPath, "server/cli.ts", "account", "create", "--name", "From File", "--tier", "free", "--url", app.url],
      {
        env: childEnv(env),
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [stdout, stderr, exitCode] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { stdout, stderr, exitCode };
  };
  const ok = await run({ ADMIN_TOKEN_FILE: file });
  expect(ok.exitCode).toBe(0);
  expect(JSON.parse(ok.stdout).name).toBe("From File");
  const missing = await run({ ADMIN_TOKEN_FILE: join(dir, "absent") });
  expect(missing.exitCode).toBe(1);
  expect(missing.stderr).toContain("ADMIN_TOKEN_FILE");
  rmSync(dir, { recursive: true, force: true });
});
