// Property-based tests (fast-check) of small pieces with many inputs: destination merging, CIDR
// allowlists, short codes, and the spool's line framing under arbitrary records.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDestination } from "../../server/redirect/destination";
import { isAddressAllowed } from "../../server/http/ip-allowlist";
import { generateShortCode } from "../../server/links/codes";
import { Spool } from "../../server/ingest/spool";
import type { CachedLink } from "../../server/links/cache";

const link = (over: Partial<CachedLink>): CachedLink => ({
  id: "11111111-1111-4111-8111-111111111111",
  accountId: "a",
  domainId: null,
  code: "abc",
  originalUrl: "https://example.com/p",
  isActive: true,
  deleted: false,
  expiresAt: null,
  passwordHash: null,
  title: null,
  description: null,
  ogImage: null,
  trackConversions: false,
  utm: [],
  targeting: null,
  expiredUrl: null,
  limitReached: false,
  ...over,
});
const param = fc.stringMatching(/^[a-z_]{1,8}$/);
const value = fc.string({ maxLength: 12 });

describe("properties", () => {
  test("the request's query always wins over the link's UTM, and the link's UTM is otherwise kept", () => {
    fc.assert(
      fc.property(fc.dictionary(param, value), fc.dictionary(param, value), (utm, query) => {
        const l = link({ utm: Object.entries(utm) });
        const out = new URL(buildDestination(l, "?" + new URLSearchParams(query).toString(), "c"));
        for (const [k, v] of Object.entries(query)) expect(out.searchParams.get(k)).toBe(v);
        for (const [k, v] of Object.entries(utm)) if (!(k in query)) expect(out.searchParams.get(k)).toBe(v);
      }),
    );
  });

  test("an IPv4 address is allowed by a CIDR exactly when its leading bits match", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (addr, net, bits) => {
        const toInt = (a: string) => a.split(".").reduce((n, o) => (n << 8) + Number(o), 0) >>> 0;
        const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
        const expected = (toInt(addr) & mask) >>> 0 === (toInt(net) & mask) >>> 0;
        expect(isAddressAllowed(addr, [`${net}/${bits}`])).toBe(expected);
        expect(isAddressAllowed(`::ffff:${addr}`, [`${net}/${bits}`])).toBe(expected);
      }),
    );
  });

  test("generated short codes are 7 base62 characters", () => {
    fc.assert(
      fc.property(fc.integer(), () => expect(generateShortCode()).toMatch(/^[0-9A-Za-z]{7}$/)),
      { numRuns: 2000 },
    );
  });

  test("whatever records are appended, the sink receives exactly those, in order, across segments", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.jsonValue(), { maxLength: 5 }), { maxLength: 30 }), async (batches) => {
        const received: unknown[] = [];
        const spool = new Spool<unknown>({
          dir: mkdtempSync(join(tmpdir(), "svc-spool-prop-")),
          name: "p",
          maxUnflushedBytes: 1 << 30,
          segmentBytes: 256,
          maxChunkBytes: 512,
          sink: async (records) => {
            received.push(...records);
          },
        });
        // Durable batches and single redirect-style records, mixed, across many small segments.
        for (const [i, b] of batches.entries()) {
          if (i % 2) await Promise.all(b.map((r) => spool.appendSoon(r)));
          else await spool.append(b);
        }
        await spool.flush();
        await spool.close();
        expect(received).toEqual(JSON.parse(JSON.stringify(batches.flat())));
      }),
      { numRuns: 40 },
    );
  });
});
