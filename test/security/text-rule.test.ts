// The text rule against Postgres itself (embedded PGlite): whatever the rule lets through, `text` and
// `jsonb` store unchanged; whatever it refuses, `jsonb` refuses too; storableText/storableJson always store.
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { PGlite } from "@electric-sql/pglite";
import { findTextProblem, storableJson, storableText, textProblem } from "../../server/storage/text";

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(() => db.close());

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
console.log(`text-rule: fast-check seed ${SEED} (FUZZ_SEED=${SEED} to replay), ${RUNS} runs`);

// Every UTF-16 code unit, NUL and lone surrogates included, mixed with ordinary text.
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: fc.constantFrom("\u0000", "\ud800", "\udfff", "a", "é", "😀", "\ufffd"), maxLength: 12 }),
);

const stores = async (sql: string, value: string) => {
  try {
    const { rows } = await db.query<{ v: unknown }>(sql, [value]);
    return { ok: true as const, value: rows[0].v };
  } catch {
    return { ok: false as const, value: null };
  }
};

test("text the rule accepts is stored unchanged in text and jsonb; text it refuses, jsonb refuses", async () => {
  await fc.assert(
    fc.asyncProperty(anyText, async (s) => {
      const inText = await stores("select $1::text as v", s);
      const inJson = await stores("select ($1::jsonb)->>'s' as v", JSON.stringify({ s }));
      if (textProblem(s) === null) {
        expect(inText).toEqual({ ok: true, value: s });
        expect(inJson).toEqual({ ok: true, value: s });
      } else {
        expect(inJson.ok).toBe(false);
      }
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test("storableText and storableJson always store, and leave clean text as it is", async () => {
  await fc.assert(
    fc.asyncProperty(anyText, anyText, async (key, s) => {
      const clean = storableText(s);
      expect(textProblem(clean)).toBeNull();
      if (textProblem(s) === null) expect(clean).toBe(s);
      expect(clean.length).toBe(s.length);
      expect(await stores("select $1::text as v", clean)).toEqual({ ok: true, value: clean });
      const json = storableJson({ [key]: [s, { s }], n: 1 });
      const stored = await stores("select $1::jsonb as v", json);
      expect(stored.ok).toBe(true);
      expect(stored.value).toEqual(JSON.parse(json));
      expect(findTextProblem(JSON.parse(json))).toBeNull();
    }),
    { numRuns: RUNS, seed: SEED },
  );
});
