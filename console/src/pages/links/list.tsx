// Links: search, filters, sort and pagination, all kept in the address (so a filtered list can be
// bookmarked and the back button works), with loading, empty and error states.
import type { ComponentChildren } from "preact";
import { api, ok, okPage } from "../../api";
import { fmtDateTime, fmtRelative } from "../../format";
import { navigate, setQuery } from "../../router";
import { useSession } from "../../session";
import type { operations } from "../../../../client/src/generated/schema";
import { useAsync } from "../../ui/async";
import { A, CopyButton, Field, Loaded, PageHeader, Pagination, Select } from "../../ui/parts";
import { Sparkline } from "../../ui/chart";
import { StatusBadge } from "./status";
import { TERMS } from "../../vocabulary";
import { fmtNumber } from "../../format";

const SORTS: [string, string][] = [
  ["created_at", "Created"],
  ["updated_at", "Updated"],
  ["last_accessed_at", "Last click"],
  ["title", "Title"],
  ["short_code", "Short code"],
  ["original_url", "Destination"],
  ["expires_at", "Expiry"],
  ["clicks_7d", "Clicks, 7 days"],
];

type ListQuery = NonNullable<operations["listLinks"]["parameters"]["query"]>;
const flag = (v: string | undefined) => (v === "true" ? true : v === "false" ? false : undefined);

export function LinksPage({ query }: { query: URLSearchParams }) {
  const { can } = useSession();
  const q = Object.fromEntries(query) as Record<string, string>;
  // The address holds the list's query as text; the server validates it and names a bad field.
  const params: ListQuery = {
    search: q.search || undefined,
    tags: q.tags || undefined,
    domain_id: q.domain_id || undefined,
    is_active: flag(q.is_active),
    has_password: flag(q.has_password),
    sort_by: (q.sort_by || "created_at") as ListQuery["sort_by"],
    sort_order: (q.sort_order || "desc") as ListQuery["sort_order"],
    per_page: Number(q.per_page || 20),
    page: Number(q.page || 1),
  };
  // The clicks column: people's clicks of the page's links in the last 7 days, one number per day.
  const links = useAsync(async () => {
    const page = await okPage(api.GET("/links", { params: { query: params } }));
    const ids = page.items.map((l) => l.id);
    const clicks =
      can("analytics:read") && ids.length
        ? await ok(api.GET("/analytics/links", { params: { query: { link_ids: ids.join(","), days: 7 } } })).then(
            (r) => new Map(r.analytics.map((row) => [row.link_id, row])),
            () => null,
          )
        : null;
    return { ...page, clicks };
  }, [query.toString()]);
  const clickSort = params.sort_by === "clicks_7d" ? params.sort_order : null;
  const domains = useAsync(() => (can("domains:read") ? ok(api.GET("/domains")) : Promise.resolve([])), []);
  const filtered = ["search", "tags", "is_active", "has_password", "domain_id"].some((k) => q[k]);
  // Choices apply at once (the list below changes, nothing else); typed text applies on Enter or Apply.
  const onChoose = (e: Event) => {
    const el = e.target as HTMLSelectElement;
    setQuery({ [el.name]: el.value, page: null });
  };
  const onFilter = (e: Event) => {
    e.preventDefault();
    const v = Object.fromEntries(new FormData(e.target as HTMLFormElement)) as Record<string, string>;
    setQuery({ ...v, page: null });
  };

  return (
    <>
      <PageHeader title="Links">
        <A to="/trash" class="button secondary">
          Trash
        </A>
        {can("links:write") && (
          <A to="/links/new" class="button">
            New link
          </A>
        )}
      </PageHeader>
      <FoldedOnPhone open={filtered}>
        <form role="search" class="filters" onSubmit={onFilter} aria-label="Filter links">
          <Field label="Search" name="search" type="search" defaultValue={q.search} placeholder="URL, title or code" />
          <Field label="Tags" name="tags" defaultValue={q.tags} placeholder="launch, promo" />
          <Select label="Status" name="is_active" value={q.is_active ?? ""} onChange={onChoose}>
            <option value="">Any</option>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
          </Select>
          <Select label="Password" name="has_password" value={q.has_password ?? ""} onChange={onChoose}>
            <option value="">Any</option>
            <option value="true">Protected</option>
            <option value="false">Open</option>
          </Select>
          {!!domains.data?.length && (
            <Select label="Domain" name="domain_id" value={q.domain_id ?? ""} onChange={onChoose}>
              <option value="">Any</option>
              {domains.data.map((d) => (
                <option value={d.id}>{d.name}</option>
              ))}
            </Select>
          )}
          <Select label="Sort by" name="sort_by" value={params.sort_by} onChange={onChoose}>
            {SORTS.map(([v, l]) => (
              <option value={v}>{l}</option>
            ))}
          </Select>
          <Select label="Order" name="sort_order" value={params.sort_order} onChange={onChoose}>
            <option value="desc">Descending</option>
            <option value="asc">Ascending</option>
          </Select>
          <div class="filter-actions">
            <button type="submit">Apply</button>
            {filtered && (
              <button type="button" class="secondary" onClick={() => navigate("/links")}>
                Clear
              </button>
            )}
          </div>
        </form>
      </FoldedOnPhone>
      <Loaded
        value={links}
        what="Loading links"
        empty={
          <>
            {filtered ? (
              <p>No link matches these filters.</p>
            ) : (
              <p>
                No links yet.{" "}
                {can("links:write") && (
                  <A to="/links/new" class="button">
                    Create your first link
                  </A>
                )}
              </p>
            )}
          </>
        }
        isEmpty={(d) => d.items.length === 0}
      >
        {(data) => (
          <>
            <div aria-busy={links.state === "loading"}>
              <table class="links-table">
                <caption class="sr-only">Links, sorted by {SORTS.find(([v]) => v === params.sort_by)?.[1]}</caption>
                <thead>
                  <tr>
                    <th scope="col">Short link</th>
                    <th scope="col">Destination</th>
                    <th scope="col">Tags</th>
                    <th scope="col">Status</th>
                    {data.clicks && (
                      <th scope="col" aria-sort={clickSort === "asc" ? "ascending" : clickSort === "desc" ? "descending" : undefined}>
                        <button
                          type="button"
                          class="sort"
                          title={`${TERMS.clicks.definition} Sorts the list.`}
                          onClick={() => setQuery({ sort_by: "clicks_7d", sort_order: clickSort === "desc" ? "asc" : "desc", page: null })}
                        >
                          {TERMS.clicks.name}, 7 days {clickSort === "desc" ? "▼" : clickSort === "asc" ? "▲" : "↕"}
                        </button>
                      </th>
                    )}
                    <th scope="col">Created</th>
                    <th scope="col">Last click</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((l) => (
                    <tr>
                      <td data-label="Short link">
                        <A to={`/links/${l.id}`} class="strong">
                          {l.short_url.replace(/^https?:\/\//, "")}
                        </A>{" "}
                        <CopyButton text={l.short_url} />
                        {l.title && <div class="muted clip">{l.title}</div>}
                      </td>
                      <td data-label="Destination" class="clip">
                        {l.original_url}
                      </td>
                      <td data-label="Tags">
                        {l.tags.map((t) => (
                          <span class="tag">{t}</span>
                        ))}
                      </td>
                      <td data-label="Status">
                        <StatusBadge link={l} />
                        {l.is_password_protected && <span class="badge">Password</span>}
                        {l.expires_at && l.status !== "expired" && <span class="badge">Expires {fmtRelative(l.expires_at)}</span>}
                        {l.status === "expired" && l.expires_at && <span class="muted"> {fmtRelative(l.expires_at)}</span>}
                      </td>
                      {data.clicks && (
                        <td data-label={`${TERMS.clicks.name}, 7 days`} class="clicks-cell">
                          {fmtNumber(data.clicks.get(l.id)?.clicks ?? 0)}
                          <Sparkline values={data.clicks.get(l.id)?.daily ?? []} />
                        </td>
                      )}
                      <td data-label="Created">{fmtDateTime(l.created_at)}</td>
                      <td data-label="Last click">{fmtRelative(l.last_accessed_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pagination page={data.page} totalPages={data.totalPages} total={data.total} onPage={(p) => setQuery({ page: p })} />
            </div>
          </>
        )}
      </Loaded>
    </>
  );
}

/** On a phone the filters are folded (open while some filter is on): unfolded they filled the first screen. */
function FoldedOnPhone({ open, children }: { open: boolean; children: ComponentChildren }) {
  if (!matchMedia("(max-width: 640px)").matches) return <>{children}</>;
  return (
    <details class="folded" open={open} id="links-filters">
      <summary>Search, filters and sort</summary>
      {children}
    </details>
  );
}
