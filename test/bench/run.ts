// `bun run bench <name>`: runs test/bench/<name>.ts (or every benchmark when no name is given).
import { readdirSync } from "node:fs";
import { join } from "node:path";

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
  console.log(`\n## bench ${name} (${new Date().toISOString().slice(0, 10)}, ${navigator.hardwareConcurrency} cores)\n`);
  const p = Bun.spawnSync([process.execPath, join(import.meta.dir, `${name}.ts`)], {
    stdout: "inherit",
    stderr: "inherit",
    env: process.env,
  });
  if (p.exitCode !== 0) process.exit(p.exitCode ?? 1);
}
