// What every route gets before its handler: JSON bodies parsed by parseJsonBody (depth cap, refused keys,
// text rule), the text rule applied to the query and the path parameters, and both the text rule and the
// refused keys to any other kind of body (forms).
import { Elysia } from "elysia";
import { validationError } from "../errors";
import { assertNoForbiddenKeys, assertStorableText, isJsonType, parseJsonBody } from "./json-body";

export function inputGuard() {
  // Bodies whose JSON text was already checked, and bodies that were a JSON array: a route whose schema
  // is an object must not take `[]` for `{}` (the schema's normalisation turns one into the other).
  const checked = new WeakSet<Request>();
  const arrays = new WeakSet<Request>();
  return new Elysia({ name: "input-guard" })
    .onParse({ as: "global" }, async ({ request }, contentType) => {
      if (!isJsonType(contentType)) return;
      const text = await request.text();
      checked.add(request);
      // An empty body is no body: a route that needs one says so through its schema.
      if (text.trim() === "") return null;
      const value = parseJsonBody(text);
      if (Array.isArray(value)) arrays.add(request);
      return value;
    })
    .onBeforeHandle({ as: "global" }, ({ request, query, params, body }) => {
      if (query) assertStorableText(query, "query");
      if (params) assertStorableText(params, "path");
      if (body === undefined || body === null) return;
      if (arrays.has(request) && !Array.isArray(body)) throw validationError("body", "must be a JSON object, not an array");
      if (checked.has(request)) return;
      assertStorableText(body, "body");
      assertNoForbiddenKeys(body, "body");
    });
}
