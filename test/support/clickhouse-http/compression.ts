// HTTP compression as ClickHouse offers it: request bodies by Content-Encoding, responses when the
// client sets enable_http_compression=1 and names a codec in Accept-Encoding. Four of the server's
// codecs; xz, lz4, bz2 and snappy are refused by name.
import zlib from "node:zlib";
import { fail } from "./errors";

export type Codec = "gzip" | "deflate" | "br" | "zstd";

const CODECS: Record<Codec, { compress(b: Uint8Array): Buffer; decompress(b: Uint8Array): Buffer }> = {
  gzip: { compress: (b) => zlib.gzipSync(b), decompress: (b) => zlib.gunzipSync(b) },
  deflate: { compress: (b) => zlib.deflateSync(b), decompress: (b) => zlib.inflateSync(b) },
  br: { compress: (b) => zlib.brotliCompressSync(b), decompress: (b) => zlib.brotliDecompressSync(b) },
  zstd: { compress: (b) => zlib.zstdCompressSync(b), decompress: (b) => zlib.zstdDecompressSync(b) },
};
const SERVER_ONLY = new Set(["xz", "lz4", "bz2", "snappy"]);
const isCodec = (name: string): name is Codec => name in CODECS;

export function decompress(body: Buffer, contentEncoding: string | null): Buffer {
  const name = contentEncoding?.trim().toLowerCase();
  if (!name || name === "identity" || name === "none") return body;
  if (!isCodec(name))
    throw fail(
      "NOT_IMPLEMENTED",
      SERVER_ONLY.has(name)
        ? `This stand-in does not decompress '${name}'; gzip, deflate, br and zstd are supported.`
        : `Unknown compression method '${name}'.`,
    );
  try {
    return CODECS[name].decompress(body);
  } catch (err) {
    throw fail("CANNOT_DECOMPRESS", `Cannot decompress the ${name} request body: ${err instanceof Error ? err.message : err}.`);
  }
}

/** The first codec in Accept-Encoding that this stand-in speaks. */
export function pickResponseCodec(acceptEncoding: string | null): Codec | undefined {
  for (const entry of acceptEncoding?.split(",") ?? []) {
    const name = entry.split(";")[0].trim().toLowerCase();
    if (isCodec(name)) return name;
  }
  return undefined;
}

export const compress = (codec: Codec, body: Uint8Array) => CODECS[codec].compress(body);
