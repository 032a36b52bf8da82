// Create and edit a link with every field of the API: destination, title, description, custom alias, tags,
// domain, campaign, expiry and where visitors go after it, password, UTM parameters (with the resulting
// address shown as you type), an OG image by URL or by upload (with a preview), a click limit with its
// fallback, targeting rules and A/B variants. The API validates; its field errors show beside the fields.
import type { ComponentChildren } from "preact";
import { useMemo, useState } from "preact/hooks";
import type { operations } from "../../../../client/src/generated/schema";
import { api, ApiError, ok, rawBody } from "../../api";
import { fmtNumber } from "../../format";
import { navigate } from "../../router";
import { useSession } from "../../session";
import type { Campaign, Domain, Link } from "../../types";
import type { UtmField } from "../../../../server/links/model";
import { aliasProblem, RESERVED_CODES } from "../../../../server/links/aliases";
import { useAsync, useSubmit } from "../../ui/async";
import { A, Alert, Failed, Field, Loading, NotAllowed, PageHeader, Select } from "../../ui/parts";
import { RulesEditor } from "./rules-editor";
import { ruleDraft, toRule, toVariant, variantDraft, weightSum, type RuleDraft, type VariantDraft } from "./targeting";
import { VariantsEditor } from "./variants-editor";

type CreateBody = operations["createLink"]["requestBody"]["content"]["application/json"];
type UpdateBody = operations["updateLink"]["requestBody"]["content"]["application/json"];

// The API's UTM fields in the order the form shows them; the compiler holds the list to the server's.
const UTM = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const satisfies readonly UtmField[];
const everyUtmField: Exclude<UtmField, (typeof UTM)[number]> extends never ? true : false = true;
void everyUtmField;
type Values = Record<string, string>;

export function LinkFormPage({ id }: { id?: string }) {
  const { can, session } = useSession();
  // Without links:write (viewers) the form could only fail with 403: a sentence instead.
  if (!can("links:write"))
    return (
      <>
        <PageHeader title={id ? "Edit link" : "New link"} />
        <NotAllowed role={session.role} what={id ? "change links" : "create links"} />
        {id && (
          <p>
            <A to={`/links/${id}`}>Back to the link</A>
          </p>
        )}
      </>
    );
  return <LinkFormLoader id={id} />;
}

function LinkFormLoader({ id }: { id?: string }) {
  const { can } = useSession();
  const link = useAsync(() => (id ? ok(api.GET("/links/{id}", { params: { path: { id } } })) : Promise.resolve(null)), [id]);
  const domains = useAsync(() => (can("domains:read") ? ok(api.GET("/domains")) : Promise.resolve([])), []);
  const campaigns = useAsync(() => ok(api.GET("/campaigns")).catch(() => []), []);
  if (link.state === "error") return <Failed error={link.error} retry={link.reload} page />;
  if (link.state === "loading" || domains.state === "loading" || campaigns.state === "loading") return <Loading what="Loading the form" />;
  return <LinkForm link={link.data} domains={(domains.data ?? []).filter((d) => d.verified)} campaigns={campaigns.data ?? []} />;
}

/** `datetime-local` works in local time without an offset; the API wants ISO 8601 in UTC. */
const toLocalInput = (iso: string | null) =>
  iso ? new Date(new Date(iso).getTime() - new Date(iso).getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : "";
const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : null);

function withUtm(url: string, v: Values): string {
  try {
    const u = new URL(url);
    for (const k of UTM) if (v[k]) u.searchParams.set(k, v[k]);
    return u.href;
  } catch {
    return "";
  }
}

/** A whole number as typed; anything else goes to the API as typed, for it to name the field. */
const toCount = (v: string) => (v.trim() === "" ? null : Number(v));

function LinkForm({ link, domains, campaigns }: { link: Link | null; domains: Domain[]; campaigns: Campaign[] }) {
  const initial: Values = {
    url: link?.original_url ?? "",
    title: link?.title ?? "",
    description: link?.description ?? "",
    custom_alias: link?.short_code ?? "",
    tags: link?.tags.join(", ") ?? "",
    domain_id: link?.domain_id ?? "",
    campaign_id: link?.campaign_id ?? "",
    expires_at: toLocalInput(link?.expires_at ?? null),
    expired_url: link?.expired_url ?? "",
    max_clicks: link?.max_clicks === null || link?.max_clicks === undefined ? "" : String(link.max_clicks),
    max_clicks_url: link?.max_clicks_url ?? "",
    og_image: link?.og_image ?? "",
    ...Object.fromEntries(UTM.map((k) => [k, link?.[k] ?? ""])),
  };
  const [v, setV] = useState<Values>(initial);
  const [protect, setProtect] = useState(link?.is_password_protected ?? false);
  const [active, setActive] = useState(link?.is_active ?? true);
  const [track, setTrack] = useState(link?.track_conversions ?? false);
  const [rules, setRules] = useState<RuleDraft[]>(() => (link?.rules ?? []).map(ruleDraft));
  const [variants, setVariants] = useState<VariantDraft[]>(() => (link?.variants ?? []).map(variantDraft));
  const [file, setFile] = useState<File | null>(null);
  const fileUrl = useMemo(() => (file ? URL.createObjectURL(file) : ""), [file]);
  const preview = fileUrl || v.og_image;
  const set = (k: string) => (e: Event) => setV({ ...v, [k]: (e.target as HTMLInputElement).value });

  // An alias the API would refuse: a reserved one is named as it is typed, a malformed one on submit.
  const aliasChanged = v.custom_alias !== "" && v.custom_alias !== (link?.short_code ?? "");
  const reservedAlias = aliasChanged && RESERVED_CODES.has(v.custom_alias.toLowerCase()) ? aliasProblem(v.custom_alias) : null;

  const form = useSubmit(async (password: string) => {
    // What the form already knows is wrong is said here, not sent to be refused.
    const badAlias = aliasChanged ? aliasProblem(v.custom_alias) : null;
    if (badAlias) throw new ApiError(0, "FORM", `Custom alias: ${badAlias}.`, { fields: [{ field: "custom_alias", message: badAlias }] });
    const sum = weightSum(variants);
    if (variants.length > 0 && sum !== 100)
      throw new ApiError(0, "FORM", `The variants' weights add up to ${sum}%; they must add up to 100%.`, {
        fields: [{ field: "variants", message: `add up to ${sum}%, not 100%` }],
      });
    const tags = v.tags
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const utm = Object.fromEntries(UTM.map((k) => [k, v[k]]));
    const targeting = {
      rules: rules.map(toRule),
      variants: variants.map(toVariant),
      max_clicks: toCount(v.max_clicks),
      max_clicks_url: v.max_clicks_url.trim() || null,
      expired_url: v.expired_url.trim() || null,
    };
    let saved: Link;
    if (!link) {
      const body: CreateBody = { url: v.url, tags, track_conversions: track };
      for (const k of ["title", "description", "custom_alias", "og_image", "domain_id", "campaign_id", ...UTM] as const)
        if (v[k]) body[k] = v[k];
      if (v.expires_at) body.expires_at = fromLocalInput(v.expires_at)!;
      if (protect) Object.assign(body, { is_password_protected: true, password });
      // Only what was set: a link without targeting is created exactly as before.
      for (const [k, value] of Object.entries(targeting))
        if (value !== null && !(Array.isArray(value) && value.length === 0)) Object.assign(body, { [k]: value });
      saved = await ok(api.POST("/links", { body }));
    } else {
      const body: UpdateBody = {
        title: v.title,
        description: v.description,
        tags,
        expires_at: fromLocalInput(v.expires_at),
        is_active: active,
        track_conversions: track,
        domain_id: v.domain_id || null,
        campaign_id: v.campaign_id || null,
        ...utm,
        ...targeting,
      };
      if (v.url.trim() !== link.original_url) body.url = v.url.trim();
      if (v.custom_alias !== link.short_code) body.custom_alias = v.custom_alias;
      if (v.og_image !== (link.og_image ?? "") && v.og_image) body.og_image = v.og_image;
      if (!protect && link.is_password_protected) body.is_password_protected = false;
      if (protect && password) Object.assign(body, { is_password_protected: true, password });
      saved = await ok(api.PATCH("/links/{id}", { params: { path: { id: link.id } }, body }));
    }
    if (file) await ok(api.PUT("/links/{id}/og-image", { params: { path: { id: saved.id } }, ...rawBody(file) }));
    navigate(`/links/${saved.id}`);
  });
  const err = form.error?.fields ?? {};
  /** A text field's name, value, input handler and error, all from the one field name. */
  const bound = (k: string) => ({ name: k, value: v[k], onInput: set(k), error: err[k] });
  const final = withUtm(v.url, v);

  return (
    <>
      <PageHeader title={link ? `Edit ${link.short_code}` : "New link"} />
      <form
        class="card form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          const password = String(new FormData(e.target as HTMLFormElement).get("password") ?? "");
          void form.submit(password);
        }}
      >
        <Alert error={form.error} />
        <fieldset>
          <legend>Destination</legend>
          <Field
            {...bound("url")}
            label="Destination URL"
            type="url"
            required
            placeholder="https://example.com/page"
            hint={link ? "Changing it keeps the short link and its clicks; the link's page lists earlier destinations." : undefined}
          />
          <Field {...bound("title")} label="Title" hint="Read from the page when left empty." />
          <Field {...bound("description")} label="Description" />
          <Field {...bound("tags")} label="Tags" hint="Separated by commas." />
        </fieldset>
        <fieldset>
          <legend>Short address</legend>
          <Field
            {...bound("custom_alias")}
            error={reservedAlias ?? err.custom_alias}
            label="Custom alias"
            hint="3–64 letters, digits, - or _. Left empty, a code is generated."
          />
          <Select label="Domain" name="domain_id" value={v.domain_id} onChange={set("domain_id")} error={err.domain_id}>
            <option value="">Default domain</option>
            {domains.map((d) => (
              <option value={d.id}>{d.name}</option>
            ))}
          </Select>
          <Select label="Campaign" name="campaign_id" value={v.campaign_id} onChange={set("campaign_id")} error={err.campaign_id}>
            <option value="">None</option>
            {campaigns.map((c) => (
              <option value={c.id}>{c.name}</option>
            ))}
          </Select>
          {campaigns.length === 0 && (
            <p class="hint" id="no-campaigns">
              No campaigns yet: <A to="/campaigns">create one</A> (Growth tier and up).
            </p>
          )}
        </fieldset>
        <OnPhoneFolded title="Access" open={protect || !active || !!v.expires_at || Object.keys(err).length > 0}>
          <fieldset>
            <legend>Access</legend>
            {link && (
              <Field label="Active" type="checkbox" checked={active} onChange={(e) => setActive((e.target as HTMLInputElement).checked)} />
            )}
            <Field {...bound("expires_at")} label="Expires at (your local time)" type="datetime-local" />
            <Field
              {...bound("expired_url")}
              label="After expiry, send visitors to"
              type="url"
              hint="Empty: a page saying the link has expired."
            />
            <Field
              label="Password-protected"
              type="checkbox"
              checked={protect}
              onChange={(e) => setProtect((e.target as HTMLInputElement).checked)}
            />
            {protect && (
              <Field
                label={link?.is_password_protected ? "New password (leave empty to keep the current one)" : "Password"}
                name="password"
                type="password"
                autocomplete="new-password"
                required={!link?.is_password_protected}
                error={err.password ?? err.is_password_protected}
              />
            )}
            <Field
              label="Track conversions (adds svc_ref for the tracker)"
              type="checkbox"
              checked={track}
              onChange={(e) => setTrack((e.target as HTMLInputElement).checked)}
            />
          </fieldset>
        </OnPhoneFolded>
        <OnPhoneFolded title="Click limit" open={!!v.max_clicks || Object.keys(err).length > 0}>
          <fieldset>
            <legend>Click limit</legend>
            <Field
              {...bound("max_clicks")}
              label="Click limit"
              type="number"
              inputMode="numeric"
              min={1}
              step={1}
              hint="People's clicks the link serves (bots do not count). Empty: no limit."
            />
            {link?.max_clicks != null && (
              <p class="muted" id="counted-clicks">
                Counted so far: {fmtNumber(link.counted_clicks ?? 0)} of {fmtNumber(link.max_clicks)}. Removing the limit resets the count.
              </p>
            )}
            <Field
              {...bound("max_clicks_url")}
              label="After the limit, send visitors to"
              type="url"
              hint="Empty: a page saying the link reached its limit."
            />
          </fieldset>
        </OnPhoneFolded>
        <OnPhoneFolded title="UTM parameters" open={UTM.some((k) => !!v[k]) || Object.keys(err).length > 0}>
          <fieldset>
            <legend>UTM parameters</legend>
            {UTM.map((k) => (
              <Field {...bound(k)} label={`UTM ${k.slice(4)}`} />
            ))}
            <p class="muted" aria-live="polite">
              Visitors land on: <span class="clip">{final || "—"}</span>
            </p>
          </fieldset>
        </OnPhoneFolded>
        <OnPhoneFolded title="Preview image" open={!!preview || Object.keys(err).length > 0}>
          <fieldset>
            <legend>Preview image</legend>
            <Field {...bound("og_image")} label="Image URL" type="url" />
            <Field
              label="Or upload an image (PNG, JPEG, WebP or GIF, at most 5 MB; Growth tier and up)"
              type="file"
              accept="image/png,image/jpeg,image/webp,image/gif"
              onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
            />
            {preview && <img class="og-preview" src={preview} alt="Preview of the link's image" />}
          </fieldset>
        </OnPhoneFolded>
        <RulesEditor rules={rules} onChange={setRules} fields={err} />
        <VariantsEditor variants={variants} onChange={setVariants} fields={err} />
        <div class="form-actions">
          <button type="submit" disabled={form.busy}>
            {form.busy ? "Saving…" : link ? "Save changes" : "Create link"}
          </button>
          <button type="button" class="secondary" onClick={() => history.back()}>
            Cancel
          </button>
        </div>
      </form>
    </>
  );
}

/** Phones fold the optional parts of the form (open when they hold something): the whole form was 2,800 px tall. */
function OnPhoneFolded({ title, open, children }: { title: string; open: boolean; children: ComponentChildren }) {
  if (!matchMedia("(max-width: 640px)").matches) return <>{children}</>;
  return (
    <details class="folded" open={open}>
      <summary>{title}</summary>
      {children}
    </details>
  );
}
