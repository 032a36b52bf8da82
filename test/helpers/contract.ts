// Checks answers of the API against its OpenAPI document: the status must be documented for the
// operation, every required header present and well-formed, and the body valid against the schema
// (JSON Schema 2020-12, ajv). An undocumented status or shape makes the request that got it throw,
// so the test that produced it fails. Used by createTestApp's request/call and by the fetch guard.
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

type Json = Record<string, any>;
const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

interface Route {
  template: string;
  pattern: RegExp;
  statics: number;
}

export class ContractChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strictTypes: false, strictTuples: false });
  private readonly prefix: string;
  private readonly routes: Route[];
  private readonly doc: Json;
  private readonly validators = new Map<Json, ValidateFunction>();

  constructor(document: Json) {
    addFormats(this.ajv);
    // The named schemas become one JSON Schema document that response schemas refer to.
    this.doc = JSON.parse(JSON.stringify(document).replaceAll('"#/components/schemas/', '"components#/$defs/'));
    this.ajv.addSchema({ $id: "components", $defs: this.doc.components?.schemas ?? {} });
    const doc = this.doc;
    this.prefix = String(doc.servers?.[0]?.url ?? "");
    this.routes = Object.keys(doc.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`),
        statics: template.split("/").filter((s) => s && !s.startsWith("{")).length,
      }))
      // /links/bulk before /links/{id}
      .sort((a, b) => b.statics - a.statics);
  }

  /** Whether this document covers the path (under its server prefix). */
  covers(path: string): boolean {
    return path === this.prefix || path.startsWith(this.prefix + "/");
  }

  /** What is wrong with this answer, or [] when it matches the document. */
  check(method: string, path: string, status: number, headers: Headers, body: string): string[] {
    const m = method.toLowerCase();
    if (!METHODS.has(m) || !this.covers(path)) return [];
    const rel = path.slice(this.prefix.length) || "/";
    // The documents and the reference page are not operations.
    if (rel === "/docs" || rel.startsWith("/docs/") || rel === "/openapi.json") return [];
    const route = this.routes.find((r) => r.pattern.test(rel) && this.doc.paths[r.template][m]);
    const where = `${method} ${path} → ${status}`;
    if (!route) {
      // Not an operation: only the router's 404 (or 405) is a fitting answer.
      return status === 404 || status === 405 ? [] : [`${where}: the document has no ${method} ${rel}`];
    }
    const op = this.doc.paths[route.template][m];
    const response = op.responses[String(status)] ?? op.responses.default;
    if (!response)
      return [`${where}: status ${status} is not documented for ${op.operationId} (documented: ${Object.keys(op.responses).join(", ")})`];
    const problems = this.checkHeaders(response, headers).map((p) => `${where}: ${p}`);
    const content = response.content as Json | undefined;
    if (!content) return problems;
    const type = (headers.get("content-type") ?? "").split(";")[0].trim();
    if (!content[type]) return [...problems, `${where}: content type "${type}" is not documented (${Object.keys(content).join(", ")})`];
    if (type !== "application/json") return problems;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [...problems, `${where}: the body is not JSON: ${body.slice(0, 200)}`];
    }
    const validate = this.validator(content[type].schema);
    if (!validate(value)) {
      const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
      problems.push(
        `${where}: the body does not match ${op.operationId}'s ${status} schema:\n    ${errors.join("\n    ")}\n    body: ${body.slice(0, 600)}`,
      );
    }
    return problems;
  }

  /** Problems of `value` against a schema of this document (e.g. an example), [] when valid. */
  validate(schema: Json, value: unknown): string[] {
    const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/'));
    const v = this.validator(rewritten);
    return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
  }

  private validator(schema: Json): ValidateFunction {
    let v = this.validators.get(schema);
    if (!v) this.validators.set(schema, (v = this.ajv.compile(schema)));
    return v;
  }

  private checkHeaders(response: Json, headers: Headers): string[] {
    const problems: string[] = [];
    for (const [name, raw] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const spec = raw.$ref ? this.doc.components.headers[String(raw.$ref).split("/").pop()!] : raw;
      const value = headers.get(name);
      if (value === null) {
        if (spec.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const schema = spec.schema ?? {};
      if (schema.type === "integer" && !/^[0-9]+$/.test(value)) problems.push(`header ${name}: "${value}" is not an integer`);
      if (schema.enum && !schema.enum.includes(value)) problems.push(`header ${name}: "${value}" is not one of ${schema.enum.join(", ")}`);
      if (schema.pattern && !new RegExp(schema.pattern).test(value))
        problems.push(`header ${name}: "${value}" does not match ${schema.pattern}`);
    }
    return problems;
  }
}

export class ContractViolation extends Error {
  constructor(problems: string[]) {
    super(`The answer does not match the OpenAPI document:\n  ${problems.join("\n  ")}`);
    this.name = "ContractViolation";
  }
}

/** How many answers were checked in this process (tests use it to see the check is wired in). */
export const checked = { count: 0 };

/** Checks a Response (its body read from a clone) and throws ContractViolation on any mismatch. */
export async function assertDocumented(checkers: ContractChecker[], method: string, url: string, res: Response): Promise<void> {
  const path = new URL(url).pathname;
  const checker = checkers.find((c) => c.covers(path));
  if (!checker) return;
  // Only JSON bodies are checked against a schema: a streamed export is left unread (and unbuffered).
  const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
  const body = method === "HEAD" || !json ? "" : await res.clone().text();
  const problems = checker.check(method, path, res.status, res.headers, body);
  checked.count++;
  if (problems.length) throw new ContractViolation(problems);
}
