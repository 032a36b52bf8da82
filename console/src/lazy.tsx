// Pages are loaded on first use (each is its own chunk): `lazyPage` shows a loading state until the
// page's module arrives, then the page. Once loaded, a page renders at once on later visits.
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { navigated } from "./router";
import { documentTitle, Loading } from "./ui/parts";

/** After a page change: the new page's heading gets focus (so it is announced) and names the document. */
export function announcePage() {
  const h1 = document.querySelector<HTMLElement>("main h1");
  if (navigated) h1?.focus();
  document.title = documentTitle(h1?.textContent);
}

export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<ComponentType<P>> | undefined;
  const start = () =>
    // A failed load is asked again next time (the network may be back).
    (pending ??= load().then(
      (c) => (loaded = c),
      (e) => {
        pending = undefined;
        throw e;
      },
    ));
  function LazyPage(props: P) {
    const [page, setPage] = useState(() => loaded);
    const [atMount] = useState(() => !!loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (page) return;
      let live = true;
      start().then(
        (c) => live && setPage(() => c),
        () => live && setFailed(true),
      );
      return () => {
        live = false;
      };
    }, []);
    // The page (or the failure) arrived after its navigation: its heading is there only now.
    useEffect(() => {
      if ((page && !atMount) || failed) announcePage();
    }, [page, failed]);
    const Page = page;
    if (Page) return <Page {...props} />;
    if (failed)
      return (
        <div class="failed">
          <h1 tabIndex={-1}>This page could not be loaded</h1>
          <p role="alert" class="alert">
            The connection failed, or the console was updated since this tab opened it.
          </p>
          <p>
            <button type="button" onClick={() => location.reload()}>
              Reload the console
            </button>
          </p>
        </div>
      );
    return <Loading what="Loading the page" />;
  }
  /** Starts fetching the page's chunk (before it is shown); a failure shows when the page is. */
  LazyPage.preload = () => void start().catch(() => {});
  return LazyPage;
}
