// IP allowlists with single addresses and CIDR ranges, IPv4 and IPv6 (IPv4-mapped IPv6 is unwrapped).
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

const normalize = (addr: string) => {
  const parsed = ipaddr.parse(addr);
  return parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
};

export function parseAllowEntry(entry: string): Range {
  if (entry.includes("/")) {
    const [addr, bits] = ipaddr.parseCIDR(entry);
    return [addr, bits];
  }
  const addr = normalize(entry);
  return [addr, addr.kind() === "ipv4" ? 32 : 128];
}

export const isValidAllowEntry = (entry: string) => {
  try {
    parseAllowEntry(entry);
    return true;
  } catch {
    return false;
  }
};

export function isAddressAllowed(address: string, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = normalize(address);
  } catch {
    return false;
  }
  return allowlist.some((entry) => {
    const [range, bits] = parseAllowEntry(entry);
    return range.kind() === addr.kind() && addr.match(range, bits);
  });
}

/** Loopback, private, link-local, unique-local and other non-public ranges. */
export function isPrivateAddress(address: string): boolean {
  try {
    const addr = normalize(address);
    // ::/96 (the deprecated IPv4-compatible form, ::7f00:1 for 127.0.0.1) is "unicast" to ipaddr.js.
    if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return true;
    return addr.range() !== "unicast";
  } catch {
    return true;
  }
}
