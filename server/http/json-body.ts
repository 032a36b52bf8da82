// Request bodies in JSON: parsed once, refused when nested deeper than any of our schemas (schema
// checks recurse and would overflow the stack), and checked against the text rule only when the text
// could hold a bad string at all.
import { AppError } from "../errors";
import { findTextProblem } from "../storage/text";

/** Deeper than every body we accept (a journey batch's properties are 3 levels down). */
export const MAX_JSON_DEPTH = 32;

export const isJsonType = (contentType: string) => {
  const type = contentType.toLowerCase();
  return type === "application/json" || type.endsWith("+json");
};

/**
 * Parses a request body. 400 VALIDATION_ERROR naming `body` when it is not JSON or nests too deep, and
 * naming the field (`body.events.3.properties.note`) when a string in it breaks the text rule.
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bodyError("body", "not valid JSON");
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw bodyError("body", `nested deeper than ${MAX_JSON_DEPTH} levels`);
  // NUL and unpaired surrogates can only come from \u escapes: raw control characters are not JSON, and
  // decoding UTF-8 never yields a surrogate.
  if (text.includes("\\u")) assertStorableText(value, "body");
  return value;
}

/** 400 naming the first string (or key) in `value` that breaks the text rule; `root` is `body`, `query`, `path`. */
export function assertStorableText(value: unknown, root: string): void {
  const found = findTextProblem(value);
  if (!found) return;
  const field = found.path ? `${root}.${found.path}` : root;
  const index = /(?:^|\.)(\d+)(?:\.|$)/.exec(found.path)?.[1];
  throw bodyError(field, found.message, index === undefined ? {} : { index: Number(index) });
}

function bodyError(field: string, message: string, extra: Record<string, unknown> = {}) {
  const label = field === "body" && message === "not valid JSON" ? "request body is not valid JSON" : message;
  return new AppError("VALIDATION_ERROR", `${field}: ${label}`, { fields: [{ field, message, ...extra }] });
}

/** Iterative, so that the check itself cannot overflow the stack. */
function nestsDeeperThan(root: unknown, max: number): boolean {
  if (typeof root !== "object" || root === null) return false;
  const stack: object[] = [root];
  const depths: number[] = [1];
  while (stack.length) {
    const value = stack.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop() as number;
    if (depth > max) return true;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child = value[i];
        if (typeof child === "object" && child !== null) {
          stack.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in value) {
        const child = value[key];
        if (typeof child === "object" && child !== null) {
          stack.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}
