// The layout rules of docs/architecture.md, checked by reading imports and source text: storage imports
// no feature, services do not import Elysia, no feature imports the composition root, no cycle of
// value imports, SQL only in repositories and query modules, only config.ts reads the environment, the
// tracker imports nothing outside itself but the event SDK's wire types (type-only), and the widgets
// and the console reach the server only with `import type` (the console may bundle a module of
// constants that imports nothing).
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const FEATURES = [
  "openapi",
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
  "shares",
  "exports",
  "insights",
  "imports",
  "alerts",
  "realtime",
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

/**
 * The files a file imports for their values (`import type`, `export type` and imports whose every name
 * is `type X` vanish at compile time and cannot make a cycle at run time). Relative imports only.
 */
function valueImports(path: string): string[] {
  const src = readFileSync(path, "utf8");
  const specs: string[] = [];
  for (const m of src.matchAll(/^\s*(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+["']([^"']+)["']/gm)) {
    if (m[1]) continue;
    const braces = m[2].match(/\{([\s\S]*)\}/);
    const outside = (braces ? m[2].replace(braces[0], "") : m[2]).replace(/,/g, "").trim();
    const names = braces
      ? braces[1]
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean)
      : [];
    if (!outside && names.length > 0 && names.every((n) => n.startsWith("type "))) continue;
    specs.push(m[3]);
  }
  for (const m of src.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) specs.push(m[1]);
  return specs.filter((s) => s.startsWith(".")).map((s) => resolveImport(path, s));
}
function resolveImport(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base;
}

/** Every cycle of the graph, as its strongly connected components of more than one file (or a self-import). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test("services return plain values: the HTTP wrappers (Envelope, Paginated) are the routes' business", () => {
  const services = files(join(ROOT, "server")).filter((f) => f.endsWith("/service.ts"));
  const offenders = services.flatMap((f) =>
    imports(f)
      .filter((i) => i.spec.endsWith("/http/envelope") && !i.typeOnly)
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(offenders).toEqual([]);
});

test("every feature of server/features.ts is under these rules", () => {
  const listed = imports(join(ROOT, "server/features.ts"))
    .map((i) => /^\.\/([\w-]+)\/feature$/.exec(i.spec)?.[1])
    .filter((f): f is string => !!f);
  expect(listed.length).toBeGreaterThan(10);
  expect(listed.filter((f) => !FEATURES.includes(f))).toEqual([]);
});

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
  expect(services.filter((f) => imports(f).some((i) => i.spec === "elysia")).map(rel)).toEqual([]);
});

test("only config.ts reads the environment (the CLI is a separate program)", () => {
  const readers = files(join(ROOT, "server"))
    .filter((f) => /\b(Bun\.env|process\.env)\b/.test(readFileSync(f, "utf8")))
    .map(rel)
    .filter((f) => f !== "server/config.ts" && f !== "server/cli.ts");
  expect(readers).toEqual([]);
});

test("the tracker imports nothing outside tracker/src but the event SDK's wire types, with `import type`", () => {
  const outside = files(join(ROOT, "tracker/src")).flatMap((f) =>
    imports(f)
      .filter((i) => !i.spec.startsWith("./") && !(i.typeOnly && i.spec === "../../event-sdk/src/types"))
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

test("the console reaches the server with `import type` only, but for constant modules that import nothing", () => {
  const importsNothing = (from: string, spec: string) => imports(resolve(dirname(from), `${spec}.ts`)).length === 0;
  const runtime = files(join(ROOT, "console/src")).flatMap((f) =>
    imports(f)
      .filter((i) => i.spec.includes("server/") && !i.typeOnly && !importsNothing(f, i.spec))
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(runtime).toEqual([]);
});

test("the cycle finder finds a cycle, and only a real one", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a", "d"]],
    ["d", []],
    ["e", ["e"]],
  ]);
  expect(cycles(graph)).toEqual([["a", "b", "c"], ["e"]]);
  expect(
    cycles(
      new Map([
        ["a", ["b"]],
        ["b", []],
      ]),
    ),
  ).toEqual([]);
});

test("no cycle of value imports in server/", () => {
  const graph = new Map(files(join(ROOT, "server")).map((f) => [f, valueImports(f)]));
  expect(graph.size).toBeGreaterThan(100);
  expect(cycles(graph).map((c) => c.map(rel))).toEqual([]);
});

/** A feature's logic and SQL: its service, its repository and its query modules. */
const isPrivate = (f: string) => /\/(service|repository|queries|[\w-]+-query)\.ts$/.test(f) || f.includes("/queries/");

/**
 * Imports of another feature's private files that stay, each with its reason. The list only shrinks: a
 * listed import that is gone must leave it.
 */
const CROSS_FEATURE_EXCEPTIONS = new Set([
  // Signing up creates the account, the person and the owner membership in one transaction.
  "server/users/service.ts → server/accounts/repository.ts",
]);

test("a feature reaches another feature through what it offers (read.ts and named modules), never its service, repository or queries", () => {
  const featureOf = (f: string) => rel(f).split("/")[1];
  const inFeatures = files(join(ROOT, "server")).filter((f) => FEATURES.includes(featureOf(f)) && rel(f).split("/").length > 2);
  const found = inFeatures.flatMap((f) =>
    imports(f)
      .filter((i) => i.spec.startsWith("."))
      .map((i) => resolveImport(f, i.spec))
      .filter((target) => rel(target).startsWith("server/") && FEATURES.includes(featureOf(target)) && featureOf(target) !== featureOf(f))
      .filter((target) => isPrivate(rel(target)))
      .map((target) => `${rel(f)} → ${rel(target)}`),
  );
  expect(found.filter((edge) => !CROSS_FEATURE_EXCEPTIONS.has(edge))).toEqual([]);
  expect([...CROSS_FEATURE_EXCEPTIONS].filter((edge) => !found.includes(edge))).toEqual([]);
});

test("the ingest pipelines import no feature's routes, service or feature module", () => {
  // server/ingest/ sits under the features (the redirect and journey ingest write to it): it may read a
  // feature's types, models and repositories, never its HTTP or service layer.
  const ingest = files(join(ROOT, "server/ingest"));
  expect(ingest.length).toBeGreaterThan(10);
  const offenders = ingest.flatMap((f) =>
    imports(f)
      .filter(
        (i) =>
          i.spec.startsWith(".") &&
          /\/(routes|service|feature)$/.test(i.spec) &&
          !rel(resolveImport(f, i.spec)).startsWith("server/ingest/"),
      )
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(offenders).toEqual([]);
});

test("visitor classification (server/visitors/) is a leaf: it imports nothing of the server's but itself", () => {
  // The redirect, the click enrichment and the reports all classify visitors the same way: one leaf that
  // any of them may import, and that can never pull a store, a feature or ingest into the others.
  const visitors = files(join(ROOT, "server/visitors"));
  expect(visitors.map(rel)).toContain("server/visitors/user-agent.ts");
  const offenders = visitors.flatMap((f) =>
    imports(f)
      .filter((i) => i.spec.startsWith(".") && !rel(resolveImport(f, i.spec)).startsWith("server/visitors/"))
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(offenders).toEqual([]);
});

test("what the reports share (server/reports/) reaches features only through their read.ts", () => {
  // The report scope is one answer for three features: it asks the owners, never their tables or services.
  const reports = files(join(ROOT, "server/reports"));
  expect(reports.map(rel)).toContain("server/reports/scope.ts");
  const offenders = reports.flatMap((f) =>
    imports(f)
      .filter((i) => i.spec.startsWith("."))
      .map((i) => rel(resolveImport(f, i.spec)))
      .filter((target) => FEATURES.includes(target.split("/")[1]) && !target.endsWith("/read.ts"))
      .map((target) => `${rel(f)} → ${target}`),
  );
  expect(offenders).toEqual([]);
});

/** The composition root: what builds the runtime, the app and the server out of the features. */
const COMPOSITION_ROOT = ["runtime.ts", "app.ts", "features.ts", "serve.ts", "main.ts"].map((f) => join(ROOT, "server", f));

/** Programs of their own, run beside the server (like cli.ts), which open a runtime as main.ts does. */
const PROGRAMS = ["server/openapi/export.ts"];

test("no feature (nor storage, http, ingest) imports the composition root", () => {
  const inFolders = files(join(ROOT, "server")).filter(
    (f) => relative(join(ROOT, "server"), f).includes("/") && !PROGRAMS.includes(rel(f)),
  );
  expect(inFolders.length).toBeGreaterThan(100);
  const offenders = inFolders.flatMap((f) =>
    imports(f)
      .filter((i) => i.spec.startsWith(".") && COMPOSITION_ROOT.includes(resolveImport(f, i.spec)))
      .map((i) => `${rel(f)} → ${i.spec}`),
  );
  expect(offenders).toEqual([]);
});

test("serve.ts imports no feature: what stands in front of the app is a feature's front handler", () => {
  const serve = join(ROOT, "server/serve.ts");
  const offenders = imports(serve)
    .filter((i) => i.spec.startsWith(".") && FEATURES.some((feature) => rel(resolveImport(serve, i.spec)).startsWith(`server/${feature}/`)))
    .map((i) => i.spec);
  expect(imports(serve).length).toBeGreaterThan(2);
  expect(offenders).toEqual([]);
});

/** What opens a store or a server of ours: a test that reaches one of these is not pure. */
const STORE_HELPERS = [
  "test/helpers/app.ts",
  "test/helpers/stores.ts",
  "test/helpers/server-process.ts",
  "test/helpers/migrated-clickhouse.ts",
  "test/security/server-process.ts",
  "test/scale/stack.ts",
  "server/runtime.ts",
];

/** Every file a file reaches through relative imports (types included), itself excluded. */
function importClosure(start: string): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.pop() as string;
    for (const i of imports(file)) {
      if (!i.spec.startsWith(".")) continue;
      const target = resolveImport(file, i.spec);
      if (seen.has(target) || !existsSync(target) || !/\.tsx?$/.test(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return seen;
}

test("a pure test (*.unit.test.ts) reaches no store helper nor the runtime, through any chain of imports", () => {
  const pure = files(join(ROOT, "test")).filter((f) => f.endsWith(".unit.test.ts"));
  expect(pure.length).toBeGreaterThan(15);
  const offenders = pure.flatMap((f) =>
    [...importClosure(f)].filter((dep) => STORE_HELPERS.includes(rel(dep))).map((dep) => `${rel(f)} → ${rel(dep)}`),
  );
  expect(offenders).toEqual([]);
});

/** A value import of drizzle or of the table objects, a `sql` template, or ClickHouse statement text. */
function holdsSql(path: string): boolean {
  const src = readFileSync(path, "utf8");
  const valueImport = (re: RegExp) =>
    [...src.matchAll(/^\s*import\s+(type\s+)?([^;]*?)\s*from\s+["']([^"']+)["']/gm)].some(
      (m) => !m[1] && re.test(m[3]) && !/^\{\s*type\s[^,]*\}$/.test(m[2].trim()),
    );
  return (
    valueImport(/^drizzle-orm(\/|$)/) ||
    valueImport(/storage\/postgres\/schema$/) ||
    /\bsql`/.test(src) ||
    /`[^`]*\b(SELECT|INSERT INTO|ALTER TABLE|OPTIMIZE TABLE)\b/.test(src) ||
    /\bch\.(query|command|insert|insertRaw)\(/.test(src)
  );
}

test("SQL lives in repositories and query modules (and storage/)", () => {
  // Query modules: queries.ts, a queries/ folder, or one report's query in <name>-query.ts.
  const isHome = (f: string) =>
    /\/(repository|queries|[\w-]+-query)\.ts$/.test(f) || f.includes("/queries/") || f.startsWith("server/storage/");
  const offenders = files(join(ROOT, "server"))
    .map(rel)
    .filter((f) => !isHome(f) && holdsSql(join(ROOT, f)));
  expect(offenders).toEqual([]);
});

test("the SQL check sees drizzle, sql templates and ClickHouse text", () => {
  expect(holdsSql(join(ROOT, "server/links/repository.ts"))).toBe(true);
  expect(holdsSql(join(ROOT, "server/journey/funnel-query.ts"))).toBe(true);
  expect(holdsSql(join(ROOT, "server/links/serialize.ts"))).toBe(false);
});

/**
 * The owner of each Postgres table: the one folder under server/ whose repository (or query module)
 * queries it. Another feature asks the owner through its read.ts (links/read.ts: ownership, the link
 * ids of a domain, campaign or tag, link facts), so each question has one answer.
 */
const TABLE_OWNERS: Record<string, string> = {
  accounts: "accounts",
  api_keys: "accounts",
  users: "users",
  team_members: "users",
  user_sessions: "users",
  invitations: "users",
  password_resets: "users",
  monthly_usage: "journey",
  visitor_salts: "ingest",
  domains: "domains",
  campaigns: "campaigns",
  links: "links",
  link_destinations: "links",
  link_counts: "links",
  purged_links: "links",
  webhook_endpoints: "webhooks",
  webhook_deliveries: "webhooks",
  service_instances: "cluster",
  shares: "shares",
  imports: "imports",
  import_origins: "imports",
  report_subscriptions: "alerts",
  alerts: "alerts",
};

/** Queries of another folder's table that stay, each with its reason. The list only shrinks. */
const TABLE_EXCEPTIONS = new Set([
  // A console session is checked in one statement with its person, membership and account (users/sessions.ts, every console request).
  "server/users/repository.ts → accounts",
  // Signing up and API-key lookups: the account, its owner and the membership in one transaction or statement.
  "server/accounts/repository.ts → users",
  "server/accounts/repository.ts → team_members",
]);

/** The tables a file queries: drizzle table objects it imports for their values, and tables its SQL text names. */
function tablesQueried(path: string, names: Map<string, string>): string[] {
  const src = readFileSync(path, "utf8");
  const found = new Set<string>();
  for (const m of src.matchAll(/^\s*import\s+\{([^}]*)\}\s*from\s+["'][./]*storage\/postgres\/schema["']/gm)) {
    for (const name of m[1].split(",").map((n) => n.trim())) if (!name.startsWith("type ") && names.has(name)) found.add(names.get(name)!);
  }
  const code = src.replace(/^\s*(\/\/|\*|\/\*).*$/gm, "");
  for (const table of names.values()) {
    if (new RegExp(`\\b(from|join|update|into)\\s+"?${table}\\b(?!\\.)`, "i").test(code)) found.add(table);
  }
  return [...found];
}

function schemaTables(): Map<string, string> {
  const schema = readFileSync(join(ROOT, "server/storage/postgres/schema.ts"), "utf8");
  return new Map([...schema.matchAll(/export const (\w+) = pgTable\(\s*"(\w+)"/g)].map((m) => [m[1], m[2]]));
}

test("every Postgres table has one owner, and only the owner's folder queries it", () => {
  const names = schemaTables();
  expect([...names.values()].sort()).toEqual(Object.keys(TABLE_OWNERS).sort());
  const found = files(join(ROOT, "server"))
    .filter((f) => !rel(f).startsWith("server/storage/"))
    .flatMap((f) => {
      const folder = rel(f).split("/")[1];
      return tablesQueried(f, names)
        .filter((table) => TABLE_OWNERS[table] !== folder)
        .map((table) => `${rel(f)} → ${table}`);
    });
  expect(found.filter((edge) => !TABLE_EXCEPTIONS.has(edge))).toEqual([]);
  expect([...TABLE_EXCEPTIONS].filter((edge) => !found.includes(edge))).toEqual([]);
});

test("the table check sees drizzle imports and SQL text", () => {
  const names = schemaTables();
  expect(tablesQueried(join(ROOT, "server/links/repository.ts"), names)).toContain("links");
  expect(tablesQueried(join(ROOT, "server/cluster/repository.ts"), names)).toEqual(["service_instances"]);
  expect(tablesQueried(join(ROOT, "server/links/service.ts"), names)).toEqual([]);
});
