// The process outlives an exception nobody caught (a hook after its response, a timer, a background job
// without a catch): it is logged and the process goes on.
import { expect, test } from "bun:test";
import { join } from "node:path";

const TARGET = join(import.meta.dir, "..", "fixtures", "process-guard-target.ts");

async function run(...args: string[]) {
  const proc = Bun.spawn([process.execPath, TARGET, ...args], { env: { TZ: "UTC" }, stdout: "pipe", stderr: "pipe" });
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { stdout, code };
}

test("an uncaught exception and an unhandled rejection are logged, and the process keeps running", async () => {
  const { stdout, code } = await run();
  const lines = stdout.trim().split("\n");
  expect(code).toBe(0);
  expect(lines).toContain("still running");
  const logged = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  expect(logged.map((l) => l.msg)).toEqual(["uncaught exception", "unhandled promise rejection"]);
  expect(logged[0].error).toContain("thrown by a timer");
  expect(logged[1].error).toContain("rejected in a background job");
});

test("without the guard the same process dies at the first exception (what the guard prevents)", async () => {
  const { stdout, code } = await run("unguarded");
  expect(code).not.toBe(0);
  expect(stdout).not.toContain("still running");
});
