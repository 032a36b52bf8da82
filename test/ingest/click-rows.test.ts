// The flush worker's rows: header text with tabs, line breaks and backslashes is stored exactly as the
// visitor sent it, and the columns stay in their places (a guard for any change of the insert format).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { rawClick, spoolClicks } from "../analytics/helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test("a click whose text holds tabs, line breaks and backslashes is stored exactly, every column in place", async () => {
  const account_id = crypto.randomUUID();
  const link_id = crypto.randomUUID();
  const odd = "a\tb\\nc\nd\re\\";
  const click = rawClick({
    account_id,
    link_id,
    referrer: `https://ref.example/${odd}`,
    query: `q=${odd}`,
    lang: odd,
    src: "qr",
    variant: `https://v.example/${odd}`,
    rule: 3,
  });
  await spoolClicks(t, [click]);
  const ch = t.runtime.deps.ch;
  const rows = await ch.query<Record<string, unknown>>(
    `SELECT click_id, link_id, referrer, referrer_url, language, query, source, variant, rule FROM ${ch.table("clicks")} WHERE account_id = {a:UUID}`,
    { a: account_id },
  );
  expect(rows).toEqual([
    {
      click_id: click.click_id,
      link_id,
      referrer: "ref.example",
      referrer_url: click.referrer,
      language: odd,
      query: click.query,
      source: "qr",
      variant: click.variant,
      rule: 3,
    },
  ]);
});
