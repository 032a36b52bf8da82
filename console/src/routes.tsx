// Which page a path shows (paths below /console). Every page is its own chunk, loaded on first use.
import { lazyPage } from "./lazy";
import { match } from "./router";

const AccountPage = lazyPage(() => import("./pages/account").then((m) => m.AccountPage));
const AlertsPage = lazyPage(() => import("./pages/alerts").then((m) => m.AlertsPage));
const AnalyticsPage = lazyPage(() => import("./pages/analytics").then((m) => m.AnalyticsPage));
const CampaignsPage = lazyPage(() => import("./pages/campaigns").then((m) => m.CampaignsPage));
const DomainsPage = lazyPage(() => import("./pages/domains").then((m) => m.DomainsPage));
const ImportsPage = lazyPage(() => import("./pages/imports").then((m) => m.ImportsPage));
const KeysPage = lazyPage(() => import("./pages/keys").then((m) => m.KeysPage));
const LinkPage = lazyPage(() => import("./pages/links/detail").then((m) => m.LinkPage));
const LinkFormPage = lazyPage(() => import("./pages/links/form").then((m) => m.LinkFormPage));
const LinksPage = lazyPage(() => import("./pages/links/list").then((m) => m.LinksPage));
const TrashPage = lazyPage(() => import("./pages/links/trash").then((m) => m.TrashPage));
const SettingsPage = lazyPage(() => import("./pages/settings").then((m) => m.SettingsPage));
const SharesPage = lazyPage(() => import("./pages/shares").then((m) => m.SharesPage));
const TeamPage = lazyPage(() => import("./pages/team").then((m) => m.TeamPage));
const WebhookPage = lazyPage(() => import("./pages/webhooks/detail").then((m) => m.WebhookPage));
const WebhooksPage = lazyPage(() => import("./pages/webhooks/list").then((m) => m.WebhooksPage));

type Page = ReturnType<typeof lazyPage<any>>;

/** The page of a path, its props, and the key that makes a new one per id (unknown paths show the links list). */
function route(path: string, query: URLSearchParams): [Page, Record<string, unknown>, string?] {
  let p: Record<string, string> | null;
  if (path === "/links/new") return [LinkFormPage, {}];
  if ((p = match("/links/:id/edit", path))) return [LinkFormPage, { id: p.id }, p.id];
  if ((p = match("/links/:id", path))) return [LinkPage, { id: p.id }, p.id];
  if ((p = match("/webhooks/:id", path))) return [WebhookPage, { id: p.id }, p.id];
  const pages: Record<string, Page> = {
    "/trash": TrashPage,
    "/analytics": AnalyticsPage,
    "/campaigns": CampaignsPage,
    "/shares": SharesPage,
    "/imports": ImportsPage,
    "/alerts": AlertsPage,
    "/keys": KeysPage,
    "/webhooks": WebhooksPage,
    "/domains": DomainsPage,
    "/team": TeamPage,
    "/account": AccountPage,
    "/settings": SettingsPage,
  };
  return Object.hasOwn(pages, path) ? [pages[path], {}] : [LinksPage, { query }];
}

export function pageFor(path: string, query: URLSearchParams) {
  const [Page, props, key] = route(path, query);
  return <Page key={key} {...props} />;
}

/** Fetches the chunk of the page a path shows while the session loads, so it is not fetched after it. */
export const preloadPage = (path: string) => route(path, new URLSearchParams())[0].preload();
