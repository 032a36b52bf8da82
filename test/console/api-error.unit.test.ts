// The console's ApiError: the messages its forms show beside their fields, by field name without location.
import { expect, test } from "bun:test";
import { ApiError } from "../../console/src/api";

test("a 400's details.fields and a 404's details.field both give their field a message", () => {
  const invalid = new ApiError(400, "VALIDATION_ERROR", "query.link_id: is required", {
    fields: [{ field: "query.link_id", message: "is required for a Plausible export" }],
  });
  expect(invalid.fields).toEqual({ link_id: "is required for a Plausible export" });
  const missing = new ApiError(404, "NOT_FOUND", "Link not found", { field: "query.link_id" });
  expect(missing.fields).toEqual({ link_id: "Link not found" });
  expect(new ApiError(404, "NOT_FOUND", "Import not found").fields).toEqual({});
});
