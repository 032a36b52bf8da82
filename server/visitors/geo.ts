// Client address → country (and region/city with a city database). Loopback, private and reserved
// addresses, and anything unknown, are `XX`. Databases are MaxMind format, read once, lazily.
import { readFileSync } from "node:fs";
import { Reader, type Response } from "maxmind";
import ipaddr from "ipaddr.js";

export interface GeoFacts {
  country_code: string;
  region: string;
  city: string;
}

interface MmdbRecord {
  country_code?: string; // ip-location-db's country database
  country?: { iso_code?: string }; // MaxMind GeoLite2/GeoIP2 City and Country
  subdivisions?: { iso_code?: string; names?: { en?: string } }[];
  city?: { names?: { en?: string } };
}

export const UNKNOWN_COUNTRY = "XX";
const BUNDLED_COUNTRY_DB = "@ip-location-db/geolite2-country-mmdb/geolite2-country.mmdb";
// Cloudflare's CF-IPCountry uses these for Tor and unknown.
const NOT_A_COUNTRY = new Set(["XX", "T1", "A1", "A2", "O1", "EU", "AP"]);

/** The address as a public unicast IP, or null (private, loopback, reserved, malformed). */
function publicAddress(ip: string): string | null {
  if (!ipaddr.isValid(ip)) return null;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr.range() === "unicast" ? addr.toString() : null;
}

export function normalizeCountry(code: string | undefined): string | null {
  const c = (code ?? "").trim().toUpperCase();
  return /^[A-Z]{2}$/.test(c) && !NOT_A_COUNTRY.has(c) ? c : null;
}

export function createGeoLocator(opts: { cityDbPath?: string; countryDbPath?: string }) {
  let reader: Reader<Response> | undefined;
  const open = () => {
    if (reader === undefined) {
      const path = opts.cityDbPath ?? opts.countryDbPath ?? Bun.resolveSync(BUNDLED_COUNTRY_DB, import.meta.dir);
      reader = new Reader<Response>(readFileSync(path));
    }
    return reader;
  };
  const memo = new Map<string, GeoFacts>();

  /** headerCountry: the trusted proxy's country header, when the redirect recorded one. */
  return function locate(ip: string, headerCountry?: string): GeoFacts {
    const key = `${ip}|${headerCountry ?? ""}`;
    const hit = memo.get(key);
    if (hit) return hit;
    const address = publicAddress(ip);
    const record = address ? (open().get(address) as MmdbRecord | null) : null;
    const fromDb = normalizeCountry(record?.country_code ?? record?.country?.iso_code);
    const country = normalizeCountry(headerCountry) ?? fromDb ?? UNKNOWN_COUNTRY;
    // Region and city only when they belong to the country we report.
    const sameCountry = country === fromDb;
    const facts: GeoFacts = {
      country_code: country,
      region: sameCountry ? (record?.subdivisions?.[0]?.iso_code ?? record?.subdivisions?.[0]?.names?.en ?? "") : "",
      city: sameCountry ? (record?.city?.names?.en ?? "") : "",
    };
    if (memo.size >= 50_000) memo.clear();
    memo.set(key, facts);
    return facts;
  };
}

export type GeoLocator = ReturnType<typeof createGeoLocator>;
