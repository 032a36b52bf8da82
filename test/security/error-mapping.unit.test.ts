// Error mapping runs when something already went wrong: it must answer the envelope whatever it is
// handed, and never throw itself.
import { expect, test } from "bun:test";
import { ValidationError, t } from "elysia";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { errorResponseBody } from "../../server/http/error-mapping";
import { createLogger } from "../../server/http/logger";

const logged: string[] = [];
const logger = createLogger("error", (chunk) => void logged.push(chunk));
const request = new Request("http://localhost/x");

test("an error whose every property throws becomes a 500 envelope, logged", () => {
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error("no property for you");
      },
      getPrototypeOf() {
        throw new Error("no prototype either");
      },
    },
  );
  for (const code of ["VALIDATION", "PARSE", "UNKNOWN", 42]) {
    const answer = errorResponseBody(code, hostile, { request }, logger);
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ success: false, error: { code: "INTERNAL_ERROR" }, meta: { status: 500 } });
    expect(answer.headers["x-request-id"]).toBeString();
  }
  logger.flush();
  expect(logged.join("")).toContain("unhandled error");
});

test("a validation error that reports no errors still names where it was", () => {
  const schema = TypeCompiler.Compile(t.Object({ n: t.Number() }));
  const error = new ValidationError("query", schema, { n: "x" });
  Object.defineProperty(error, "all", { get: () => undefined });
  const answer = errorResponseBody("VALIDATION", error, { request }, logger);
  expect(answer.status).toBe(400);
  expect((answer.body as any).error.details.fields[0].field).toStartWith("query");
});

test("a failed schema transform names the field that held the value", () => {
  const inner = { path: "/0", message: "Expected string length less or equal to 64" };
  const value = ["a".repeat(100)];
  const decodeError = Object.assign(new Error("Unable to decode value"), { value, error: inner, schema: {} });
  const answer = errorResponseBody("VALIDATION", decodeError, { request, query: { tags: "a".repeat(100) } }, logger);
  expect(answer.status).toBe(400);
  expect((answer.body as any).error.details.fields[0]).toEqual({ field: "query.tags.0", message: inner.message });
});

test("a failed union or enum names what it allows", () => {
  const literals = TypeCompiler.Compile(t.Object({ os: t.Union([t.Literal("ios"), t.Literal("android")]) }));
  const union = errorResponseBody("VALIDATION", new ValidationError("body", literals, { os: "x" }), { request }, logger);
  expect((union.body as any).error.details.fields[0]).toEqual({ field: "body.os", message: "must be one of ios, android" });
  const mixed = TypeCompiler.Compile(t.Object({ n: t.Union([t.Integer(), t.Null()]) }));
  const either = errorResponseBody("VALIDATION", new ValidationError("body", mixed, { n: "x" }), { request }, logger);
  expect((either.body as any).error.details.fields[0]).toEqual({ field: "body.n", message: "must be integer or null" });
});

test("a value of the kind one union member takes gets that member's complaint", () => {
  const schema = TypeCompiler.Compile(t.Object({ u: t.Union([t.String({ maxLength: 3 }), t.Null()]) }));
  const answer = errorResponseBody("VALIDATION", new ValidationError("body", schema, { u: "abcdef" }), { request }, logger);
  expect((answer.body as any).error.details.fields[0]).toEqual({ field: "body.u", message: "Expected string length less or equal to 3" });
});

test("a socket error outside Postgres (a fetch's) stays a 500; inside a Postgres error it names Postgres", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
  expect(errorResponseBody("UNKNOWN", refused, { request }, logger).status).toBe(500);
  class PostgresError extends Error {}
  const fromPostgres = new PostgresError("Failed query", { cause: refused });
  const answer = errorResponseBody("UNKNOWN", fromPostgres, { request }, logger);
  expect(answer.status).toBe(503);
  expect(answer.body).toMatchObject({ error: { code: "POSTGRES_UNAVAILABLE" }, meta: { status: 503 } });
  expect(answer.headers["retry-after"]).toBe("5");
});
