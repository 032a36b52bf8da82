// A link's QR code: a preview drawn by the API as the options change (size, quiet zone, error correction,
// colours, the logo), the API's refusals beside the option they name (a foreground without enough contrast,
// a size too small for the code, a logo with too little error correction), SVG and PNG downloads, and the
// logo's upload and removal (Growth tier and up, for roles that may change links).
import { useEffect, useState } from "preact/hooks";
import type { operations } from "../../../../client/src/generated/schema";
import { API, api, ok, okBlob, rawBody } from "../../api";
import { useSession } from "../../session";
import type { Link, Tier } from "../../types";
import { useAsync, useSubmit } from "../../ui/async";
import { Alert, Field, Select, Status } from "../../ui/parts";

type QrQuery = NonNullable<operations["getLinkQr"]["parameters"]["query"]>;
type Level = NonNullable<QrQuery["level"]>;
const LEVELS: [Level, string][] = [
  ["L", "L: 7% may be damaged"],
  ["M", "M: 15%"],
  ["Q", "Q: 25%"],
  ["H", "H: 30%"],
];
const LOGO_TIERS: Tier[] = ["growth", "pro", "business", "scale"];

interface Options {
  size: string;
  margin: string;
  level: Level | "";
  fg: string;
  bg: string;
  logo: boolean;
}
const DEFAULTS: Options = { size: "512", margin: "4", level: "", fg: "#000000", bg: "#ffffff", logo: false };

function toQuery(o: Options, format: "svg" | "png"): QrQuery {
  const q: QrQuery = { format, size: Number(o.size), margin: Number(o.margin), fg: o.fg, bg: o.bg };
  if (o.level) q.level = o.level;
  if (o.logo) q.logo = true;
  return q;
}

/** The same request as a link: the browser downloads it with the session cookie. */
const imageUrl = (id: string, q: QrQuery) =>
  `${API}/links/${id}/qr?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`;

export function QrPanel({ link, onChanged }: { link: Link; onChanged: () => void }) {
  const { can, session } = useSession();
  const [o, setO] = useState<Options>(DEFAULTS);
  const logo = o.logo && link.qr_logo !== null;
  const options = { ...o, logo };
  const key = JSON.stringify(options);
  const preview = useAsync(async () => {
    const query = toQuery(options, "svg");
    return URL.createObjectURL(await okBlob(api.GET("/links/{id}/qr", { params: { path: { id: link.id }, query }, parseAs: "blob" })));
  }, [link.id, key, link.qr_logo]);
  useEffect(() => () => void (preview.data && URL.revokeObjectURL(preview.data)), [preview.data]);
  const err = preview.error?.fields ?? {};
  const set = (k: keyof Options) => (e: Event) => setO({ ...o, [k]: (e.target as HTMLInputElement).value });

  const [note, setNote] = useState("");
  const logoAction = useSubmit(async (file: File | null) => {
    if (file) {
      await ok(api.PUT("/links/{id}/qr-logo", { params: { path: { id: link.id } }, ...rawBody(file) }));
      setO({ ...o, logo: true });
      setNote("Logo uploaded: it is in the middle of the code");
    } else {
      await ok(api.DELETE("/links/{id}/qr-logo", { params: { path: { id: link.id } } }));
      setO({ ...o, logo: false });
      setNote("Logo removed");
    }
    onChanged();
  });
  const mayUpload = can("links:write") && LOGO_TIERS.includes(session.account.tier as Tier);

  return (
    <section class="card" aria-labelledby="qr-code">
      <h2 id="qr-code">QR code</h2>
      <p class="muted">
        The code opens the short link marked as a scan, so scans are counted apart from clicks (below, under “Link or QR code”).
      </p>
      <div class="qr">
        <div class="qr-preview" aria-busy={preview.state === "loading"}>
          {preview.state === "error" ? (
            <Alert error={preview.error} />
          ) : preview.data ? (
            <img id="qr-image" src={preview.data} alt={`QR code of ${link.short_url}`} width={240} height={240} />
          ) : (
            <p class="loading">Drawing the code…</p>
          )}
          {preview.state !== "error" && (
            <p class="actions">
              <a class="button" href={imageUrl(link.id, toQuery(options, "svg"))} download={`${link.short_code}.svg`}>
                Download SVG
              </a>
              <a class="button" href={imageUrl(link.id, toQuery(options, "png"))} download={`${link.short_code}.png`}>
                Download PNG
              </a>
            </p>
          )}
        </div>
        <form class="qr-options" aria-label="QR code options" onSubmit={(e) => e.preventDefault()}>
          <Field label="Size (pixels)" type="number" min={64} max={2048} value={o.size} onChange={set("size")} error={err.size} />
          <Field label="Quiet zone (modules)" type="number" min={1} max={16} value={o.margin} onChange={set("margin")} error={err.margin} />
          <Select label="Error correction" value={o.level} onChange={set("level")} error={err.level}>
            <option value="">Automatic (M; H with a logo)</option>
            {LEVELS.map(([l, name]) => (
              <option value={l}>{name}</option>
            ))}
          </Select>
          <div class="colours">
            <Field label="Foreground colour" type="color" value={o.fg} onChange={set("fg")} error={err.fg} />
            <Field label="Background colour" type="color" value={o.bg} onChange={set("bg")} error={err.bg} />
          </div>
          {link.qr_logo && (
            <Field
              label="Logo in the middle"
              type="checkbox"
              checked={logo}
              onChange={(e) => setO({ ...o, logo: (e.target as HTMLInputElement).checked })}
              error={err.logo}
            />
          )}
          <button type="button" class="secondary" onClick={() => setO({ ...DEFAULTS, logo: o.logo })}>
            Reset the options
          </button>
          <Alert error={logoAction.error} />
          <Status>{note}</Status>
          {mayUpload ? (
            <div class="qr-logo">
              <Field
                label={
                  link.qr_logo
                    ? "Replace the logo (PNG, JPEG, WebP or GIF, at most 5 MB)"
                    : "Upload a logo (PNG, JPEG, WebP or GIF, at most 5 MB)"
                }
                type="file"
                accept="image/png,image/jpeg,image/webp,image/gif"
                disabled={logoAction.busy}
                onChange={(e) => {
                  const input = e.target as HTMLInputElement;
                  const file = input.files?.[0];
                  if (file) void logoAction.submit(file).then(() => (input.value = ""));
                }}
              />
              {link.qr_logo && (
                <button type="button" class="danger" disabled={logoAction.busy} onClick={() => logoAction.submit(null)}>
                  Remove the logo
                </button>
              )}
            </div>
          ) : (
            can("links:write") && <p class="muted">A logo in the middle of the code needs the Growth tier or higher.</p>
          )}
        </form>
      </div>
    </section>
  );
}
