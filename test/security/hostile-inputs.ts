// Generators of hostile requests for the fuzz suite: adversarial strings (NUL, lone surrogates, invalid
// UTF-8 once percent-encoded, huge, deeply nested), wrong types and wrong content types, aimed at the
// fields each route really has (from the server's OpenAPI document) as well as at random ones.
import fc from "fast-check";

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.string({ unit: fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), loneSurrogate), maxLength: 24 }),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\u0000",
      "a\u0000b",
      "\ud800",
      "x\udfff",
      "😀",
      "\u202e\ufeff",
      "null",
      "0",
      "-1",
      "1e309",
      "NaN",
      "true",
      "../../etc/passwd",
      "<script>alert(1)</script>",
      "' or 1=1 --",
      "$1",
      "%00",
      "\r\nX-Injected: 1",
      "javascript:alert(1)",
      "https://127.0.0.1/",
      "http://[::1]:22/",
      "https://93.184.215.14/hook",
      "2026-02-30",
      "9999-12-31T23:59:59Z",
      "00000000-0000-0000-0000-000000000000",
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom("A".repeat(5000), "😀".repeat(700), "\u0000".repeat(300), "x".repeat(70_000)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 16 }) },
);

export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(nastyString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Percent-encodes the UTF-8 of `s` (a lone surrogate becomes EF BF BD), or passes `raw` fragments as they are. */
export const pct = (s: string) =>
  [...Buffer.from(s, "utf8")]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0").toUpperCase()}`,
    )
    .join("");

/** Already-encoded fragments: invalid UTF-8, a broken escape, an encoded NUL, dot segments. */
export const rawFragment = fc.constantFrom(
  "%ED%A0%80",
  "%FF%FE",
  "%C3",
  "%",
  "%G0",
  "%00",
  "%2e%2e%2f",
  "..%2F..%2F",
  "a%20b",
  "%E2%80%AE",
);

export const pathValue = (ids: string[]) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...ids) },
    { weight: 1, arbitrary: fc.uuid().map(String) },
    { weight: 3, arbitrary: nastyString.map((s) => pct(s.slice(0, 300))) },
    { weight: 1, arbitrary: rawFragment },
  );

export const queryPairs = (names: string[]) =>
  fc.array(
    fc.tuple(
      fc.oneof(
        { weight: 4, arbitrary: names.length ? fc.constantFrom(...names) : fc.constant("q") },
        { weight: 1, arbitrary: nastyString.map(pct) },
      ),
      fc.oneof({ weight: 4, arbitrary: nastyString.map((s) => pct(s.slice(0, 2000))) }, { weight: 1, arbitrary: rawFragment }),
    ),
    { maxLength: 4 },
  );

export const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/vnd.api+json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "multipart/form-data",
  "application/octet-stream",
  "image/png",
  "text/html",
  "",
  "json",
  "application/json; charset=latin1",
];

export interface BodyCase {
  kind: string;
  bytes: Uint8Array | null;
}

const text = (kind: string, s: string): BodyCase => ({ kind, bytes: Buffer.from(s, "utf8") });

/** Bodies for a route whose JSON fields are `fields`; `template` is a valid body to spoil one field of. */
export function bodyCase(fields: string[], template: unknown): fc.Arbitrary<BodyCase> {
  const keys = fields.length
    ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...fields) }, { weight: 1, arbitrary: nastyString })
    : nastyString;
  const spoiled =
    template && typeof template === "object" && !Array.isArray(template)
      ? fc.tuple(keys, jsonValue).map(([k, v]) => text("spoiled field", JSON.stringify({ ...template, [k]: v })))
      : Array.isArray(template)
        ? fc.tuple(keys, jsonValue).map(([k, v]) => text("spoiled item", JSON.stringify([{ ...template[0], [k]: v }])))
        : fc.constant(text("no template", "{}"));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<BodyCase>({ kind: "none", bytes: null }) },
    { weight: 6, arbitrary: spoiled },
    { weight: 2, arbitrary: fc.dictionary(keys, jsonValue, { maxKeys: 5 }).map((o) => text("fields", JSON.stringify(o))) },
    { weight: 2, arbitrary: jsonValue.map((v) => text("any JSON", JSON.stringify(v) ?? "null")) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 20, max: 20_000 }), fc.constantFrom("[", '{"title":', '{"events":['))
        .map(([depth, open]) => text("deep", `${open.repeat(depth)}1`)),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: "raw bytes", bytes })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        text("escapes", '{"title":"\\u0000","description":"\\ud800","name":"\\udfff\\u0000"}'),
        text("escaped key", '{"\\u0000":1,"events":[{"\\ud800":2}]}'),
        text("not JSON", '{"title": "unterminated'),
        text("empty", ""),
        text("BOM", '\ufeff{"name":"x"}'),
        text("duplicate keys", '{"name":"a","name":"\\u0000"}'),
        text("huge number", '{"name":1e400,"tier":-0}'),
        {
          kind: "invalid UTF-8 in a string",
          bytes: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from('"}')]),
        },
      ),
    },
  );
}

/** Host header values, mostly the right one. */
export const hostHeader = (right: string) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(right) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "a@b",
        "a b",
        "x:99999999",
        "[",
        "",
        "[::1]",
        "EXAMPLE.COM",
        "a".repeat(300),
        "127.0.0.1:0",
        "-x-.example",
      ),
    },
  );

/** A header value as latin1 bytes that HTTP allows: tab, visible ASCII and obs-text, nothing else. */
export const headerValue = nastyString.map((s) =>
  Buffer.from(s.slice(0, 500), "utf8")
    .toString("latin1")
    .replace(/[\x00-\x08\x0a-\x1f\x7f]/g, " "),
);
