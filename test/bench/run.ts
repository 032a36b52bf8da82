// `bun run bench <name>`: runs test/bench/<name>.ts (or every benchmark when no name is given).
import { readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";

// The machine is shared: the load average (1, 5, 15 minutes) before and after says what else ran.
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");
const gitHead = () =>
  Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: import.meta.dir, env: { PATH: process.env.PATH ?? "" } })
    .stdout.toString()
    .trim();

const names = process.argv.slice(2);
const all = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("lib-"))
  .map((f) => f.slice(0, -3));
const chosen = names.length ? names : all;
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`Unknown benchmark "${name}". Available: ${all.join(", ")}`);
    process.exit(2);
  }
  console.log(
    `\n## bench ${name} (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${navigator.hardwareConcurrency} cores, Bun ${Bun.version}, git ${gitHead()}; load average ${load()})\n`,
  );
  const p = Bun.spawnSync([process.execPath, join(import.meta.dir, `${name}.ts`)], {
    stdout: "inherit",
    stderr: "inherit",
    env: process.env,
  });
  console.log(`\n(bench ${name} ended ${new Date().toISOString().slice(11, 16)} UTC; load average ${load()})`);
  if (p.exitCode !== 0) process.exit(p.exitCode ?? 1);
}
