// The image's HEALTHCHECK (there is no curl in it): `bun server/ops/probe.ts /livez` exits 0 when
// that path answers 2xx on this container's PORT.
import { localProbeUrl } from "../config";

try {
  const res = await fetch(localProbeUrl(process.argv[2] ?? "/livez"), { signal: AbortSignal.timeout(4_000) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
