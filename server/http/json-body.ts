// Request bodies in JSON: parsed once, refused when nested deeper than any of our schemas (schema
// checks recurse and would overflow the stack) or when an object in them has a key named `__proto__`,
// `constructor` or `prototype`, and checked against the text rule only when the text could hold a bad
// string at all.
//
// Why refuse those keys: JSON.parse makes `"__proto__"` an own key, but every later copy that assigns
// (schema normalisation, defaults, Object.assign) turns it into the object's prototype, and the fields in
// it then read as if the client had sent them, unchecked by the schema. No schema of ours has a field by
// these names, and in free-form maps (`properties`) they are the keys that reach code as `map[key]`.
import { AppError } from "../errors";
import { findTextProblem } from "../storage/text";

/** Deeper than every body we accept (a journey batch's properties are 3 levels down). */
export const MAX_JSON_DEPTH = 32;

/** Keys refused in every object of every body: see the top of this file. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export const isJsonType = (contentType: string) => {
  const type = contentType.toLowerCase();
  return type === "application/json" || type.endsWith("+json");
};

/**
 * Parses a request body. 400 VALIDATION_ERROR naming `body` when it is not JSON or nests too deep, and
 * naming the field (`body.events.3.properties.note`) when a string in it breaks the text rule or a key
 * in it is one of FORBIDDEN_KEYS (`body.__proto__`).
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bodyError("body", "not valid JSON");
  }
  const shape = walkShape(value, MAX_JSON_DEPTH);
  if (shape === TOO_DEEP) throw bodyError("body", `nested deeper than ${MAX_JSON_DEPTH} levels`);
  if (shape === FORBIDDEN_KEY) assertNoForbiddenKeys(value, "body");
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

/** 400 naming the first key in `value` that is one of FORBIDDEN_KEYS; for bodies parsed by someone else (forms). */
export function assertNoForbiddenKeys(value: unknown, root: string): void {
  const path = forbiddenKeyPath(value);
  if (path === null) return;
  const index = /^(\d+)\./.exec(path)?.[1];
  throw bodyError(`${root}.${path}`, FORBIDDEN_KEY_MESSAGE, index === undefined ? {} : { index: Number(index) });
}

const FORBIDDEN_KEY_MESSAGE = "key not allowed (__proto__, constructor and prototype are refused)";

function bodyError(field: string, message: string, extra: Record<string, unknown> = {}) {
  const label = field === "body" && message === "not valid JSON" ? "request body is not valid JSON" : message;
  return new AppError("VALIDATION_ERROR", `${field}: ${label}`, { fields: [{ field, message, ...extra }] });
}

const FINE = 0;
const TOO_DEEP = 1;
const FORBIDDEN_KEY = 2;

/** One pass over the body: too deep, or holding a forbidden key. Iterative, so that it cannot overflow the stack. */
function walkShape(root: unknown, max: number): number {
  if (typeof root !== "object" || root === null) return FINE;
  let forbidden = false;
  const stack: object[] = [root];
  const depths: number[] = [1];
  while (stack.length) {
    const value = stack.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop() as number;
    if (depth > max) return TOO_DEEP;
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
        if (FORBIDDEN_KEYS.has(key)) forbidden = true;
        const child = value[key];
        if (typeof child === "object" && child !== null) {
          stack.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return forbidden ? FORBIDDEN_KEY : FINE;
}

/** Where the first forbidden key is (`events.0.properties.__proto__`); recursive, for bodies no deeper than MAX_JSON_DEPTH. */
function forbiddenKeyPath(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = forbiddenKeyPath(value[i]);
      if (inner !== null) return `${i}.${inner}`;
    }
    return null;
  }
  for (const key in value) {
    if (FORBIDDEN_KEYS.has(key)) return key;
    const inner = forbiddenKeyPath((value as Record<string, unknown>)[key]);
    if (inner !== null) return `${key}.${inner}`;
  }
  return null;
}
