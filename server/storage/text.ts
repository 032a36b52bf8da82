// The one rule for text that reaches Postgres: no NUL character (`text` and `jsonb` refuse U+0000) and
// no unpaired UTF-16 surrogate (`jsonb` refuses one; `text` would silently store U+FFFD instead, and
// ClickHouse refuses one in JSON input). Text a caller sends is refused with the field named (see
// server/http/input-guard.ts); text a remote site or webhook receiver sends is stored as storableText().

export const NUL_MESSAGE = "must not contain NUL (U+0000) characters";
export const SURROGATE_MESSAGE = "must be valid Unicode (it contains an unpaired surrogate)";

/** Why `s` cannot be stored as it is, or null when it can. */
export function textProblem(s: string): string | null {
  if (s.includes("\0")) return NUL_MESSAGE;
  if (!s.isWellFormed()) return SURROGATE_MESSAGE;
  return null;
}

/** `s` with every NUL and unpaired surrogate replaced by U+FFFD (the string itself when it is clean). */
export function storableText(s: string): string {
  if (textProblem(s) === null) return s;
  return s.toWellFormed().replaceAll("\0", "\uFFFD");
}

export interface TextProblem {
  /** Dotted path below the root, e.g. `events.3.properties.note`; "" for the root itself. */
  path: string;
  message: string;
}

/** The first string (value or object key) in `value` that cannot be stored, with where it is. */
export function findTextProblem(value: unknown, path = ""): TextProblem | null {
  if (typeof value === "string") {
    const message = textProblem(value);
    return message ? { path, message } : null;
  }
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findTextProblem(value[i], join(path, String(i)));
      if (found) return found;
    }
    return null;
  }
  for (const key in value) {
    const keyProblem = textProblem(key);
    if (keyProblem) return { path: join(path, storableText(key)), message: `names a key that ${keyProblem}` };
    const found = findTextProblem((value as Record<string, unknown>)[key], join(path, key));
    if (found) return found;
  }
  return null;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * JSON for a `jsonb` value: JSON.stringify's own output, unless a string in it could not be stored, then
 * the same with storableText() applied to every string and key. JSON.stringify writes NUL and unpaired
 * surrogates only as \u escapes, so clean output is recognised without walking the value.
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (!/\\u(?:0000|d[89a-f])/i.test(json)) return json;
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "string") return storableText(v);
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) out[storableText(k)] = inner;
    return out;
  });
}
