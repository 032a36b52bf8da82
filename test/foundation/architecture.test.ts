// The layout rules of STYLE.md, checked by reading imports: storage imports no feature, services do
// not import Elysia, only config.ts reads the environment, the tracker imports nothing outside itself,
// and the widgets reach the server only with `import type`.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const FEATURES = [
  "accounts",
  "analytics",
  "campaigns",
  "conversions",
  "domains",
  "journey",
  "links",
  "redirect",
  "webhooks",
  "assets",
  "ops",
  "users",
  "console",
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "dist" || name === "node_modules") return [];
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(path) ? [path] : [];
  });
}
const imports = (path: string) =>
  [...readFileSync(path, "utf8").matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+["']([^"']+)["']/gm)].map((m) => ({
    typeOnly: !!m[2],
    spec: m[3],
  }));
const rel = (path: string) => relative(ROOT, path);

test("storage imports no feature", () => {
  const offenders = files(join(ROOT, "server/storage")).flatMap((f) =>
    imports(f)
      .filter((i) => FEATURES.some((feature) => i.spec.includes(`/${feature}/`)))
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(offenders).toEqual([]);
});

test("services do not import Elysia", () => {
  const services = files(join(ROOT, "server")).filter((f) => f.endsWith("/service.ts"));
  expect(services.length).toBeGreaterThan(5);
  expect(services.filter((f) => imports(f).some((i) => i.spec === "elysia" && !i.typeOnly)).map(rel)).toEqual([]);
});

test("only config.ts reads the environment (the CLI is a separate program)", () => {
  const readers = files(join(ROOT, "server"))
    .filter((f) => /\b(Bun\.env|process\.env)\b/.test(readFileSync(f, "utf8")))
    .map(rel)
    .filter((f) => f !== "server/config.ts" && f !== "server/cli.ts");
  expect(readers).toEqual([]);
});

test("the tracker imports nothing outside tracker/src", () => {
  const outside = files(join(ROOT, "tracker/src")).flatMap((f) =>
    imports(f)
      .filter((i) => !i.spec.startsWith("./"))
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(outside).toEqual([]);
});

test("the widgets reach the server with `import type` only", () => {
  const runtime = files(join(ROOT, "dashboard-widgets/src")).flatMap((f) =>
    imports(f)
      .filter((i) => i.spec.includes("server/") && !i.typeOnly)
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(runtime).toEqual([]);
});

test("the console reaches the server with `import type` only", () => {
  const runtime = files(join(ROOT, "console/src")).flatMap((f) =>
    imports(f)
      .filter((i) => i.spec.includes("server/") && !i.typeOnly)
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(runtime).toEqual([]);
});
