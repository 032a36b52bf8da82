// The Kubernetes manifests (deploy/kubernetes) against the Kubernetes API schemas of the
// kubernetes-models package (offline), and against what the server and docs/deployment.md say: probe
// paths, the secret files config.ts reads, the grace period that covers the drain, one volume per pod.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Service } from "kubernetes-models/v1/Service";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { SECRET_VARIABLES } from "../../server/config";

const DIR = join(import.meta.dir, "..", "..", "deploy", "kubernetes");
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  "apps/v1/StatefulSet": StatefulSet,
  "v1/ConfigMap": ConfigMap,
  "v1/Namespace": Namespace,
  "v1/Service": Service,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "networking.k8s.io/v1/Ingress": Ingress,
};

const kustomization = Bun.YAML.parse(readFileSync(join(DIR, "kustomization.yaml"), "utf8")) as { resources: string[] };
const docs = kustomization.resources.flatMap((file) => {
  const parsed = Bun.YAML.parse(readFileSync(join(DIR, file), "utf8"));
  return (Array.isArray(parsed) ? parsed : [parsed]).map((doc) => ({ file, doc: doc as any }));
});
const one = (kind: string, name?: string) => {
  const found = docs.filter((d) => d.doc.kind === kind && (name === undefined || d.doc.metadata.name === name));
  expect(found.length, `${kind} ${name ?? ""}`).toBe(1);
  return found[0].doc;
};

/** Errors of the API schema for one object (the model's validate() throws them). */
function schemaErrors(doc: any): string | null {
  const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
  if (!Model) return `no schema for ${doc.apiVersion} ${doc.kind}`;
  try {
    new Model(doc).validate();
    return null;
  } catch (err) {
    return String((err as Error).message);
  }
}

describe("Kubernetes manifests", () => {
  test("every object of the kustomization is valid against the Kubernetes API schema", () => {
    expect(docs.length).toBe(7);
    for (const { file, doc } of docs) expect(schemaErrors(doc), `${file}: ${doc.kind}`).toBeNull();
  });

  test("the schema check catches a broken object", () => {
    const broken = structuredClone(one("StatefulSet"));
    broken.spec.template.spec.containers[0].ports[0].containerPort = "three thousand";
    expect(schemaErrors(broken)).toContain("containerPort");
    const noSelector = structuredClone(one("StatefulSet"));
    delete noSelector.spec.selector;
    expect(schemaErrors(noSelector)).toContain("selector");
  });

  const sts = one("StatefulSet", "svc");
  const pod = sts.spec.template.spec;
  const container = pod.containers[0];

  test("each instance keeps its own DATA_DIR volume, mounted where the image puts DATA_DIR", () => {
    const claim = sts.spec.volumeClaimTemplates[0];
    expect(claim.spec.accessModes).toEqual(["ReadWriteOnce"]);
    expect(container.volumeMounts).toContainEqual({ name: claim.metadata.name, mountPath: "/data" });
    expect(readFileSync(join(import.meta.dir, "..", "..", "Containerfile"), "utf8")).toContain("DATA_DIR=/data");
    expect(sts.spec.selector.matchLabels).toEqual(sts.spec.template.metadata.labels);
    expect(one("Service", sts.spec.serviceName).spec.clusterIP).toBe("None");
  });

  test("liveness asks nothing of the stores; readiness does; both are routes of the server", () => {
    expect(container.livenessProbe.httpGet.path).toBe("/livez");
    expect(container.startupProbe.httpGet.path).toBe("/livez");
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    const routes = readFileSync(join(import.meta.dir, "..", "..", "server", "ops", "routes.ts"), "utf8");
    for (const path of ["/livez", "/readyz"]) expect(routes).toContain(`"${path}"`);
    const port = container.ports.find((p: { name: string }) => p.name === container.readinessProbe.httpGet.port);
    expect(port.containerPort).toBe(3000);
  });

  test("the grace period covers the pre-stop pause and the drain", () => {
    const preStop = Number(container.lifecycle.preStop.exec.command[1]);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(preStop + 30);
  });

  test("secrets come by reference, as files config.ts reads through *_FILE", () => {
    const fileVars = container.env.filter((e: { name: string }) => e.name.endsWith("_FILE"));
    expect(fileVars.length).toBeGreaterThan(0);
    for (const e of fileVars) {
      expect(SECRET_VARIABLES as readonly string[]).toContain(e.name.replace(/_FILE$/, ""));
      expect(e.value.startsWith("/run/secrets/svc/")).toBe(true);
      expect(e).not.toHaveProperty("valueFrom");
    }
    expect(container.volumeMounts).toContainEqual({ name: "secrets", mountPath: "/run/secrets/svc", readOnly: true });
    expect(pod.volumes.find((v: { name: string }) => v.name === "secrets").secret.secretName).toBe("svc-secrets");
    // No secret value in the manifests: the ConfigMap holds none of the secret variables.
    const config = one("ConfigMap", "svc-config").data;
    for (const name of SECRET_VARIABLES) expect(config).not.toHaveProperty(name);
    expect(docs.some((d) => d.doc.kind === "Secret")).toBe(false);
  });

  test("a disruption takes one instance at a time, and the budget selects the service's pods", () => {
    const pdb = one("PodDisruptionBudget", "svc");
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(pdb.spec.selector.matchLabels).toEqual(sts.spec.template.metadata.labels);
    expect(sts.spec.replicas).toBeGreaterThan(pdb.spec.maxUnavailable);
  });

  test("runs as the image's non-root user with requests and a memory limit", () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(container.resources.requests).toHaveProperty("cpu");
    expect(container.resources.requests).toHaveProperty("memory");
    expect(container.resources.limits).toHaveProperty("memory");
  });
});
