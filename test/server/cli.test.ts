import { expect, test } from "bun:test";
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
