// The size budget of t.js: built as tracker/build.ts builds it (nothing written), gzipped at zlib
// level 9 (what `gzip -9 -n` gives). Brotli (quality 11) is printed beside it for information.
import { expect, test } from "bun:test";
import { BUDGET_GZIP_BYTES, br, bundle, gz } from "../../tracker/build";

test("t.js is at most BUDGET_GZIP_BYTES gzipped, and the budget is not loosened", async () => {
  const js = await bundle("iife");
  console.log(`t.js ${js.length} B raw, ${gz(js)} B gzip -9, ${br(js)} B brotli (budget ${BUDGET_GZIP_BYTES} B gzip)`);
  expect(gz(js)).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  expect(BUDGET_GZIP_BYTES).toBeLessThanOrEqual(1500); // issue #29: at most 1,500 bytes with every feature
});

test("t.js carries none of the test-only options, and t.esm.js keeps them", async () => {
  const [js, esm] = await Promise.all([bundle("iife"), bundle("esm")]);
  for (const opt of ["flushDelay", ".now||", "setTimeout||", ".window||"]) expect(js).not.toContain(opt);
  for (const opt of ["flushDelay", ".now||", ".setTimeout||", ".window||"]) expect(esm).toContain(opt);
});
