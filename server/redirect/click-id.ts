// Click ids are random version-4 UUIDs. A click id leaves in `svc_ref` to the destination, whose tracker
// sends it back as the visitor's id, and conversions are credited by it: a guessable id (a per-process
// prefix and a counter was tried, ~0.2 µs cheaper) would let anyone who saw one of their own clicks post
// events and conversions as other people's clicks, and would show the instance's redirect volume.
export const nextClickId = (): string => crypto.randomUUID();
