// QR code images of a text (a short URL): the matrix from the `qrcode` encoder, drawn here as SVG or as
// PNG pixels (sharp), with a quiet zone, chosen colours, and an optional logo in the middle.
import QRCode from "qrcode";
import sharp from "sharp";

export type QrLevel = "L" | "M" | "Q" | "H";

export interface QrImageOptions {
  format: "svg" | "png";
  /** Width and height in pixels. */
  size: number;
  /** Quiet zone around the symbol, in modules. */
  margin: number;
  level: QrLevel;
  /** #rrggbb */
  fg: string;
  bg: string;
  /** Logo image bytes (any format sharp reads), drawn over the symbol's centre on a background square. */
  logo?: Uint8Array;
}

/** Share of the symbol's width the logo square takes: ~4% of its area, well within Q's and H's recovery. */
const LOGO_SHARE = 0.2;

export function qrMatrix(text: string, level: QrLevel) {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: level });
  return { size: modules.size, dark: (row: number, col: number) => modules.get(row, col) === 1 };
}

/** Modules across the whole image (symbol and quiet zone). */
export const qrModulesAcross = (text: string, level: QrLevel, margin: number) => qrMatrix(text, level).size + 2 * margin;

export async function renderQr(text: string, o: QrImageOptions): Promise<{ body: Uint8Array; type: string }> {
  const m = qrMatrix(text, o.level);
  return o.format === "svg"
    ? { body: new TextEncoder().encode(await svgOf(m, o)), type: "image/svg+xml" }
    : { body: await pngOf(m, o), type: "image/png" };
}

type Matrix = ReturnType<typeof qrMatrix>;

/** The logo square in image units (modules for SVG, pixels for PNG): centred, an odd number of modules wide. */
function logoBox(m: Matrix, margin: number, unit: number) {
  let modules = Math.ceil(m.size * LOGO_SHARE);
  if (modules % 2 === 0) modules += 1;
  const start = margin + (m.size - modules) / 2;
  return { x: Math.round(start * unit), side: Math.round(modules * unit) };
}

async function svgOf(m: Matrix, o: QrImageOptions): Promise<string> {
  const across = m.size + 2 * o.margin;
  // One path: each row's runs of dark modules as rectangles.
  let d = "";
  for (let row = 0; row < m.size; row++) {
    for (let col = 0; col < m.size; ) {
      if (!m.dark(row, col)) {
        col++;
        continue;
      }
      let end = col;
      while (end < m.size && m.dark(row, end)) end++;
      d += `M${col + o.margin} ${row + o.margin}h${end - col}v1h${col - end}z`;
      col = end;
    }
  }
  let logo = "";
  if (o.logo) {
    const box = logoBox(m, o.margin, 1);
    const pad = 0.5;
    const png = await fitLogo(o.logo, Math.max(64, Math.round((o.size / across) * box.side * 2)));
    logo =
      `<rect x="${box.x - pad}" y="${box.x - pad}" width="${box.side + 2 * pad}" height="${box.side + 2 * pad}" fill="${o.bg}"/>` +
      `<image x="${box.x}" y="${box.x}" width="${box.side}" height="${box.side}" href="data:image/png;base64,${Buffer.from(png).toString("base64")}"/>`;
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${o.size}" height="${o.size}" viewBox="0 0 ${across} ${across}" shape-rendering="crispEdges">` +
    `<rect width="${across}" height="${across}" fill="${o.bg}"/><path fill="${o.fg}" d="${d}"/>${logo}</svg>`
  );
}

async function pngOf(m: Matrix, o: QrImageOptions): Promise<Uint8Array> {
  const across = m.size + 2 * o.margin;
  const scale = o.size / across;
  const fg = rgb(o.fg);
  const bg = rgb(o.bg);
  // Which module each pixel column falls in (nearest neighbour; modules differ by at most a pixel).
  const moduleAt = Int32Array.from({ length: o.size }, (_, p) => Math.min(across - 1, Math.floor(p / scale)) - o.margin);
  const pixels = Buffer.alloc(o.size * o.size * 3);
  for (let y = 0; y < o.size; y++) {
    const row = moduleAt[y];
    for (let x = 0; x < o.size; x++) {
      const col = moduleAt[x];
      const c = row >= 0 && row < m.size && col >= 0 && col < m.size && m.dark(row, col) ? fg : bg;
      pixels.set(c, (y * o.size + x) * 3);
    }
  }
  let image = sharp(pixels, { raw: { width: o.size, height: o.size, channels: 3 } });
  if (o.logo) {
    const box = logoBox(m, o.margin, scale);
    const pad = Math.max(1, Math.round(scale / 2));
    const square = await sharp({ create: { width: box.side + 2 * pad, height: box.side + 2 * pad, channels: 3, background: o.bg } })
      .png()
      .toBuffer();
    image = image.composite([
      { input: square, left: box.x - pad, top: box.x - pad },
      { input: await fitLogo(o.logo, box.side), left: box.x, top: box.x },
    ]);
  }
  return new Uint8Array(await image.png({ compressionLevel: 9, palette: !o.logo }).toBuffer());
}

const fitLogo = (logo: Uint8Array, side: number) =>
  sharp(logo)
    .resize(side, side, { fit: "contain", background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();

export const rgb = (hex: string): [number, number, number] => [
  Number.parseInt(hex.slice(1, 3), 16),
  Number.parseInt(hex.slice(3, 5), 16),
  Number.parseInt(hex.slice(5, 7), 16),
];

/** WCAG 2 relative luminance of #rrggbb. */
export function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two colours (1 to 21). */
export const contrastRatio = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
