// compose.yaml as docs/deployment.md describes it: pinned images, a health check on every store and
// instance, instances that wait for healthy stores, a DATA_DIR volume per instance, secrets as files the
// server reads through *_FILE, and a proxy that knows every instance. CI runs it (.ci/containers.sh).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SECRET_VARIABLES } from "../../server/config";

const ROOT = join(import.meta.dir, "..", "..");
const compose = Bun.YAML.parse(readFileSync(join(ROOT, "compose.yaml"), "utf8")) as any;
const services = compose.services as Record<string, any>;
const instances = Object.keys(services).filter((name) => /^svc-\d+$/.test(name));

describe("compose.yaml", () => {
  test("every image is pinned to a version (no latest, no bare name)", () => {
    for (const [name, s] of Object.entries(services)) {
      if (instances.includes(name)) continue; // the image built from this repository, named by SVC_IMAGE
      expect(s.image, name).toMatch(/:[0-9][0-9A-Za-z.-]*$/);
    }
  });

  test("each instance has its own DATA_DIR volume, a readiness check and waits for healthy stores", () => {
    expect(instances.length).toBeGreaterThanOrEqual(2);
    const volumes = instances.map((name) => services[name].volumes.find((v: string) => v.endsWith(":/data")));
    expect(new Set(volumes).size).toBe(instances.length);
    for (const name of instances) {
      const s = services[name];
      expect(s.healthcheck.test).toEqual(["CMD", "bun", "server/ops/probe.ts", "/readyz"]);
      expect(s.depends_on).toEqual({
        postgres: { condition: "service_healthy" },
        clickhouse: { condition: "service_healthy" },
        redis: { condition: "service_healthy" },
      });
      expect(s.stop_grace_period).toBe("60s");
    }
    for (const store of ["postgres", "clickhouse", "redis"]) expect(services[store].healthcheck.test.length, store).toBeGreaterThan(1);
  });

  test("secrets are files read through *_FILE, and no secret variable has a value", () => {
    for (const name of instances) {
      const env = services[name].environment as Record<string, string>;
      for (const secret of SECRET_VARIABLES) expect(env, `${name} ${secret}`).not.toHaveProperty(secret);
      for (const [key, value] of Object.entries(env).filter(([k]) => k.endsWith("_FILE"))) {
        expect(SECRET_VARIABLES as readonly string[]).toContain(key.replace(/_FILE$/, ""));
        const secret = value.replace("/run/secrets/", "");
        expect(services[name].secrets).toContain(secret);
        expect(compose.secrets[secret].file).toBe(`./secrets/${secret}`);
      }
    }
  });

  test("the proxy sends to every instance, and only to ready ones", () => {
    const caddyfile = readFileSync(join(ROOT, "deploy", "compose", "Caddyfile"), "utf8");
    const upstreams = caddyfile.match(/^reverse_proxy (.+) \{$/m)?.[1].split(/\s+/);
    expect(upstreams?.sort()).toEqual(instances.map((name) => `${name}:3000`).sort());
    expect(caddyfile).toMatch(/health_uri \/readyz/);
    for (const name of instances) expect(services[name].environment.TRUST_PROXY).toBe("true");
  });
});
