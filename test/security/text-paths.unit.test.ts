// Where the text rule points: the path of the first bad string or key in a JSON value (the field an
// error names). text-rule.test.ts checks the rule itself against Postgres.
import { expect, test } from "bun:test";
import { findTextProblem } from "../../server/storage/text";

test("findTextProblem names the first bad string or key by its path", () => {
  expect(findTextProblem({ a: ["ok", { b: "x\u0000" }] })).toEqual({ path: "a.1.b", message: "must not contain NUL (U+0000) characters" });
  expect(findTextProblem({ events: [{ properties: { "k\ud800": 1 } }] })?.path).toBe("events.0.properties.k\ufffd");
  expect(findTextProblem("\udc00")?.path).toBe("");
  expect(findTextProblem({ a: "😀", b: [1, null, true] })).toBeNull();
});
