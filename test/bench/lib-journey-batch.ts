// The ingest benches' batch: a few visitors' page views, scrolls and timers with the fields the tracker sends.
const TYPES = ["page_view", "scroll_depth", "time_on_page", "custom"] as const;

/** `size` events of one link, as a request body of POST /journey/events takes them. */
export function journeyBatch(linkId: string, size: number) {
  return Array.from({ length: size }, (_, i) => ({
    link_id: linkId,
    visitor_id: `visitor-${i % 17}`,
    session_id: `session-${i % 23}`,
    event_type: TYPES[i % 4],
    ...(i % 4 === 3 ? { event_name: "cta_click" } : {}),
    page_url: `https://shop.example/products/${i % 9}`,
    page_title: "Product page",
    ...(i % 4 === 1 ? { scroll_percent: 75 } : {}),
    ...(i % 4 === 2 ? { time_on_page: 31.5 } : {}),
    country_code: "DE",
    device_type: "mobile",
    browser: "Chrome",
    os: "Android",
    properties: { variant: "b", position: i },
  }));
}
