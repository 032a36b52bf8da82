// PORT=0: the server takes the port the system picks, and what it prints and the URLs it makes from
// BASE_URL's default name that port: the printed URL answers, and a short link made there redirects.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { preparePostgres, sharedStoresEnv } from "../helpers/stores";
import { ADMIN, provision, spawnServer } from "../helpers/server-process";
import { until } from "../helpers/until";

const dataDir = mkdtempSync(join(tmpdir(), "svc-port-zero-"));
let child: Subprocess | undefined;
afterAll(async () => {
  child?.kill("SIGKILL");
  await child?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

const jsonLines = (log: string[]) =>
  log.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });

test("a server started with PORT=0 prints a URL with the port it took; that URL and its short links answer", async () => {
  const log: string[] = [];
  const server = spawnServer(
    {
      ...(await sharedStoresEnv(await preparePostgres(dataDir))),
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: "error",
    },
    log,
  );
  child = server;
  const listening = () => jsonLines(log).find((l) => l.msg === "listening");
  await until(() => server.exitCode !== null || listening() !== undefined, 90_000, "the listening line");
  expect({ exit: server.exitCode, log }).toEqual({ exit: null, log });
  const { url, port } = listening() as { url: string; port: number };
  expect(port).toBeGreaterThan(0);
  expect(url).toBe(`http://localhost:${port}`);

  const health = await fetch(`${url}/healthz`);
  expect(health.status).toBe(200);

  const { key, linkId } = await provision(url, ["links:write", "links:read"]);
  const link = await fetch(`${url}/public-api/v1/links/${linkId}`, { headers: { "x-api-key": key } }).then((r) => r.json());
  expect(link.data.short_url).toBe(`${url}/${link.data.short_code}`);
  const redirect = await fetch(link.data.short_url, { redirect: "manual" });
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get("location")).toStartWith("https://example.com/app");

  server.kill("SIGTERM");
  expect(await server.exited).toBe(0);
});
