// ClickHouse's RowBinary input format, written in place: each row's values in column order, with no
// names, separators or escapes (https://clickhouse.com/docs/interfaces/formats/RowBinary). Only the
// types our tables insert: UUID, DateTime64(3) as epoch ms, String (LowCardinality(String) reads the
// same), UInt8, UInt64, Int64 and Nullable floats. The reader reads back what the writer wrote (the
// journey spool's binary lines, when a chunk must be seen as rows).

/** Buffer's native UTF-8 writer without the encoding argument's parsing (about half the cost of `write(s, at)`). */
type Utf8Writer = Buffer & { utf8Write(s: string, offset: number): number };

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;

export class RowBinaryWriter {
  private buf: Buffer;
  private at = 0;

  constructor(initialBytes = 1 << 20) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /** The bytes written so far (a view, valid until the next write). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  reset() {
    this.at = 0;
  }

  private room(n: number) {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  /** A UUID's text (8-4-4-4-12 hex digits) as two little-endian UInt64 halves, the high one first. */
  uuid(text: string) {
    if (text.length !== 36 || text[8] !== "-" || text[13] !== "-" || text[18] !== "-" || text[23] !== "-") {
      throw new Error(`not a UUID: ${JSON.stringify(text)}`);
    }
    this.room(16);
    const b = this.buf;
    const base = this.at;
    // Hex digit pairs in text order: the first 8 bytes reversed into the first half, the rest into the second.
    let byte = 0;
    for (let i = 0; i < 36; i += 2) {
      if (i === 8 || i === 13 || i === 18 || i === 23) i++;
      const hi = HEX[text.charCodeAt(i)] ?? -1;
      const lo = HEX[text.charCodeAt(i + 1)] ?? -1;
      if (hi < 0 || lo < 0) throw new Error(`not a UUID: ${JSON.stringify(text)}`);
      b[base + (byte < 8 ? 7 - byte : 23 - byte)] = (hi << 4) | lo;
      byte++;
    }
    this.at += 16;
  }

  /** A UTF-8 string behind its byte length as an unsigned LEB128 varint. */
  string(s: string) {
    if (s.length === 0) {
      this.room(1);
      this.buf[this.at++] = 0;
      return;
    }
    // Up to 3 bytes per UTF-16 unit; a length below 128 takes one byte.
    const max = s.length * 3;
    if (max < 128) {
      this.room(1 + max);
      const n = (this.buf as Utf8Writer).utf8Write(s, this.at + 1);
      this.buf[this.at] = n;
      this.at += 1 + n;
      return;
    }
    const n = Buffer.byteLength(s);
    this.room(10 + n);
    this.varint(n);
    this.at += (this.buf as Utf8Writer).utf8Write(s, this.at);
  }

  private varint(n: number) {
    while (n >= 0x80) {
      this.buf[this.at++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.at++] = n;
  }

  /** Bytes given as base64 text (`text`'s bytes `start` to `end`), decoded in place. */
  base64(text: Buffer, start: number, end: number) {
    this.room(Math.ceil((end - start) / 4) * 3);
    this.at += this.buf.write(text.toString("latin1", start, end), this.at, "base64");
  }

  u8(n: number) {
    this.room(1);
    this.buf[this.at++] = n;
  }

  /** An integer of up to 53 bits as Int64 (also DateTime64(3) from epoch milliseconds). */
  i64(n: number) {
    this.room(8);
    if (Math.abs(n) < 2 ** 47) {
      this.buf.writeIntLE(n, this.at, 6);
      this.buf.writeInt16LE(n < 0 ? -1 : 0, this.at + 6);
    } else this.buf.writeBigInt64LE(BigInt(n), this.at);
    this.at += 8;
  }

  /** A UInt64 from its decimal text. */
  u64Text(text: string) {
    this.room(8);
    this.buf.writeBigUInt64LE(BigInt(text), this.at);
    this.at += 8;
  }

  nullableF32(v: number | null) {
    this.room(5);
    if (v === null) {
      this.buf[this.at++] = 1;
      return;
    }
    this.buf[this.at++] = 0;
    this.at = this.buf.writeFloatLE(v, this.at);
  }

  nullableF64(v: number | null) {
    this.room(9);
    if (v === null) {
      this.buf[this.at++] = 1;
      return;
    }
    this.buf[this.at++] = 0;
    this.at = this.buf.writeDoubleLE(v, this.at);
  }
}

const HEX_DIGITS = "0123456789abcdef";

/** Reads the values RowBinaryWriter writes, in the same order; throws past the end. */
export class RowBinaryReader {
  private at = 0;

  constructor(private readonly buf: Buffer) {}

  get done() {
    return this.at >= this.buf.length;
  }

  private take(n: number): number {
    const at = this.at;
    if (at + n > this.buf.length) throw new Error(`RowBinary: ${n} bytes wanted at ${at}, ${this.buf.length - at} left`);
    this.at += n;
    return at;
  }

  /** A UUID as lower-case text (ClickHouse's toString). */
  uuid(): string {
    const at = this.take(16);
    let s = "";
    for (let byte = 0; byte < 16; byte++) {
      if (byte === 4 || byte === 6 || byte === 8 || byte === 10) s += "-";
      const v = this.buf[at + (byte < 8 ? 7 - byte : 23 - byte)];
      s += HEX_DIGITS[v >> 4] + HEX_DIGITS[v & 15];
    }
    return s;
  }

  string(): string {
    let n = 0;
    for (let shift = 1; ; shift *= 128) {
      const b = this.buf[this.take(1)];
      n += (b & 0x7f) * shift;
      if (b < 0x80) break;
    }
    const at = this.take(n);
    return this.buf.toString("utf8", at, at + n);
  }

  u8(): number {
    return this.buf[this.take(1)];
  }

  i64(): number {
    return Number(this.buf.readBigInt64LE(this.take(8)));
  }

  nullableF32(): number | null {
    return this.u8() ? null : this.buf.readFloatLE(this.take(4));
  }

  nullableF64(): number | null {
    return this.u8() ? null : this.buf.readDoubleLE(this.take(8));
  }
}
