// The whole Postgres schema (drizzle). Migrations under ./migrations are generated from this file.
import { sql } from "drizzle-orm";
import {
  pgTable,
  uuid,
  text,
  timestamp,
  customType,
  boolean,
  integer,
  bigint,
  index,
  uniqueIndex,
  primaryKey,
  date,
  doublePrecision,
} from "drizzle-orm/pg-core";

/**
 * jsonb whose value goes to the driver as it is: both drivers encode it as JSON for a jsonb parameter.
 * drizzle's own jsonb() sends JSON text, which Bun's SQL client (named statements, so it knows the
 * parameter is jsonb) would store as one JSON string.
 */
const jsonb = customType<{ data: unknown; driverData: unknown }>({ dataType: () => "jsonb", toDriver: (value) => value });

/** Stored shapes of a link's rules and variants (validated by the links feature before they get here). */
export interface LinkRuleJson {
  if: { country?: string[]; device?: string[]; os?: string[]; language?: string[]; query?: { name: string; value: string } };
  url: string;
}
export interface LinkVariantJson {
  url: string;
  weight: number;
}

const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const accounts = pgTable("accounts", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  tier: text("tier").notNull(),
  limitOverrides: jsonb("limit_overrides")
    .$type<{ journey_events_per_month?: number | null; clicks_per_month?: number | null }>()
    .notNull()
    .default({}),
  createdAt: createdAt(),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    scopes: text("scopes").array().notNull(),
    allowedIps: text("allowed_ips").array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_key_hash_idx").on(t.keyHash), index("api_keys_account_idx").on(t.accountId)],
);

/** People who sign in to the console; the email is stored lower-cased. */
export const users = pgTable("users", {
  id: uuid("id").primaryKey().defaultRandom(),
  email: text("email").notNull().unique("users_email_key"),
  passwordHash: text("password_hash").notNull(),
  createdAt: createdAt(),
  passwordChangedAt: ts("password_changed_at").notNull().defaultNow(),
});

export const teamMembers = pgTable(
  "team_members",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").notNull(),
    /** The user who holds this membership; null until the invited person accepts. */
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("team_members_account_email_idx").on(t.accountId, t.email), index("team_members_user_idx").on(t.userId)],
);

/** Console sessions: only the SHA-256 of the cookie's token is stored. */
export const userSessions = pgTable(
  "user_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique("user_sessions_token_hash_key"),
    userAgent: text("user_agent"),
    ip: text("ip"),
    createdAt: createdAt(),
    lastSeenAt: ts("last_seen_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("user_sessions_user_idx").on(t.userId)],
);

/**
 * Invitations to an account (token stored as SHA-256). A setup link is an owner invitation without
 * an email: whoever opens it chooses the email.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    email: text("email"),
    role: text("role").notNull(),
    tokenHash: text("token_hash").notNull().unique("invitations_token_hash_key"),
    invitedBy: uuid("invited_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    acceptedAt: ts("accepted_at"),
  },
  (t) => [index("invitations_account_idx").on(t.accountId)],
);

/** One-time password reset tokens (SHA-256), from the email form or the operator's CLI. */
export const passwordResets = pgTable(
  "password_resets",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique("password_resets_token_hash_key"),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
  },
  (t) => [index("password_resets_user_idx").on(t.userId)],
);

/** Exact monthly counters; month is the first day of the calendar month (UTC). */
export const monthlyUsage = pgTable(
  "monthly_usage",
  {
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    month: date("month", { mode: "string" }).notNull(),
    journeyEvents: bigint("journey_events", { mode: "number" }).notNull().default(0),
    clicks: bigint("clicks", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.month] })],
);

/** Daily random salts for visitor hashes (Plausible's scheme): shared by every instance. */
export const visitorSalts = pgTable("visitor_salts", {
  day: date("day", { mode: "string" }).primaryKey(),
  salt: text("salt").notNull(),
});

export const domains = pgTable(
  "domains",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    verificationToken: text("verification_token").notNull(),
    verifiedAt: ts("verified_at"),
    createdAt: createdAt(),
  },
  (t) => [
    // A name may wait unverified in several accounts (claiming one proves nothing); verifying it, which
    // only its owner can, makes it that account's alone.
    uniqueIndex("domains_verified_name_idx").on(t.name).where(sql`${t.verifiedAt} is not null`),
    uniqueIndex("domains_account_name_idx").on(t.accountId, t.name),
    index("domains_account_idx").on(t.accountId),
  ],
);

export const campaigns = pgTable(
  "campaigns",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    createdAt: createdAt(),
  },
  (t) => [index("campaigns_account_idx").on(t.accountId, t.createdAt)],
);

export const links = pgTable(
  "links",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    domainId: uuid("domain_id").references(() => domains.id, { onDelete: "set null" }),
    campaignId: uuid("campaign_id").references(() => campaigns.id, { onDelete: "set null" }),
    shortCode: text("short_code").notNull(),
    originalUrl: text("original_url").notNull(),
    title: text("title"),
    description: text("description"),
    ogImage: text("og_image"),
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    isActive: boolean("is_active").notNull().default(true),
    expiresAt: ts("expires_at"),
    passwordHash: text("password_hash"),
    utmSource: text("utm_source"),
    utmMedium: text("utm_medium"),
    utmCampaign: text("utm_campaign"),
    utmTerm: text("utm_term"),
    utmContent: text("utm_content"),
    trackConversions: boolean("track_conversions").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" })
      .notNull()
      .defaultNow()
      .$onUpdate(() => new Date()),
    deletedAt: ts("deleted_at"),
    lastAccessedAt: ts("last_accessed_at"),
    expiredNotifiedAt: ts("expired_notified_at"),
    /** Targeting rules and A/B variants as the API takes them (links/model.ts); null when none. */
    rules: jsonb("rules").$type<LinkRuleJson[]>(),
    variants: jsonb("variants").$type<LinkVariantJson[]>(),
    maxClicks: integer("max_clicks"),
    maxClicksUrl: text("max_clicks_url"),
    expiredUrl: text("expired_url"),
    /** Human clicks served while the link has max_clicks (exact: the redirect adds to it atomically). */
    countedClicks: bigint("counted_clicks", { mode: "number" }).notNull().default(0),
    limitNotifiedAt: ts("limit_notified_at"),
    qrLogo: text("qr_logo"),
    /** Clicks counted by another product before the link was imported (a total, not clicks of ours). */
    importedClicks: bigint("imported_clicks", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    uniqueIndex("links_code_default_domain_idx").on(t.shortCode).where(sql`${t.domainId} IS NULL`),
    uniqueIndex("links_code_custom_domain_idx").on(t.domainId, t.shortCode).where(sql`${t.domainId} IS NOT NULL`),
    // Every link of an account, deleted ones too (the accounts foreign key's cascade, analytics).
    index("links_account_created_idx").on(t.accountId, t.createdAt),
    // GET /links pages: live links in the order of a sort_by field with id as tie-breaker, so a page
    // is read from the index (either direction) without sorting.
    index("links_live_created_idx").on(t.accountId, t.createdAt, t.id).where(sql`${t.deletedAt} IS NULL`),
    index("links_live_last_accessed_idx").on(t.accountId, t.lastAccessedAt, t.id).where(sql`${t.deletedAt} IS NULL`),
    index("links_live_title_idx").on(t.accountId, t.title, t.id).where(sql`${t.deletedAt} IS NULL`),
    index("links_live_updated_idx").on(t.accountId, t.updatedAt, t.id).where(sql`${t.deletedAt} IS NULL`),
    index("links_live_code_idx").on(t.accountId, t.shortCode, t.id).where(sql`${t.deletedAt} IS NULL`),
    index("links_live_expires_idx").on(t.accountId, t.expiresAt, t.id).where(sql`${t.deletedAt} IS NULL`),
    // URLs can exceed a B-tree entry's size: the index holds their first 600 characters in byte order
    // (LINK_URL_ORDER in links/repository.ts), the rare ties beyond are sorted.
    index("links_live_url_idx").on(t.accountId, sql`left(${t.originalUrl}, 600) collate "C"`).where(sql`${t.deletedAt} IS NULL`),
    index("links_tags_idx").using("gin", t.tags),
    // Substring search over URL, title and code (GET /links?search=): trigram GIN, see migration 0001.
    index("links_search_idx").using(
      "gin",
      sql`(${t.originalUrl} || ' ' || coalesce(${t.title}, '') || ' ' || ${t.shortCode}) gin_trgm_ops`,
    ),
    index("links_deleted_idx").on(t.deletedAt).where(sql`${t.deletedAt} IS NOT NULL`),
    index("links_expiry_idx").on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL AND ${t.expiredNotifiedAt} IS NULL`),
    // The sweeper's limited links that have not announced a reached limit yet (migration 0008).
    index("links_click_limit_idx").on(t.id).where(sql`${t.maxClicks} IS NOT NULL AND ${t.limitNotifiedAt} IS NULL`),
  ],
);

/**
 * Live (not deleted) links per account, kept exact by triggers on links (migration 0003) in the
 * writing statement's transaction: GET /links's meta.total without counting 100,000 rows.
 */
/**
 * A link's earlier destinations (PATCH /links/{id} with a new url): one row per change, holding the URL it
 * replaced and when. The link keeps its code and its click history; this keeps what it pointed at.
 */
export const linkDestinations = pgTable(
  "link_destinations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    linkId: uuid("link_id")
      .notNull()
      .references(() => links.id, { onDelete: "cascade" }),
    previousUrl: text("previous_url").notNull(),
    newUrl: text("new_url").notNull(),
    changedAt: timestamp("changed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("link_destinations_link_idx").on(t.linkId, t.changedAt)],
);

export const linkCounts = pgTable("link_counts", {
  accountId: uuid("account_id")
    .primaryKey()
    .references(() => accounts.id, { onDelete: "cascade" }),
  live: bigint("live", { mode: "number" }).notNull().default(0),
});

/** Links the purge job removed for good, kept so a late restore answers 410 rather than 404. */
export const purgedLinks = pgTable(
  "purged_links",
  {
    id: uuid("id").primaryKey(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    purgedAt: ts("purged_at").notNull().defaultNow(),
  },
  (t) => [index("purged_links_purged_at_idx").on(t.purgedAt)],
);

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    description: text("description"),
    secretEncrypted: text("secret_encrypted").notNull(),
    isActive: boolean("is_active").notNull().default(true),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_endpoints_account_idx").on(t.accountId)],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    accountId: uuid("account_id").notNull(),
    eventType: text("event_type").notNull(),
    payload: jsonb("payload").notNull(),
    status: text("status").notNull().default("pending"),
    attemptNumber: integer("attempt_number").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(3),
    httpStatus: integer("http_status"),
    responseBody: text("response_body"),
    errorMessage: text("error_message"),
    nextRetryAt: ts("next_retry_at").defaultNow(),
    lockedUntil: ts("locked_until"),
    /** The instance (service_instances.id) holding the lease: a restarted instance releases its own at once. */
    lockedBy: uuid("locked_by"),
    createdAt: createdAt(),
    deliveredAt: ts("delivered_at"),
  },
  (t) => [
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
    index("webhook_deliveries_due_idx").on(t.nextRetryAt).where(sql`${t.status} IN ('pending', 'retrying')`),
    index("webhook_deliveries_locked_by_idx").on(t.lockedBy).where(sql`${t.lockedUntil} IS NOT NULL`),
  ],
);

/**
 * The instances sharing this database (several behind a load balancer), each with its last heartbeat:
 * a change to a cached row is answered once every instance with a fresh heartbeat has applied it.
 */
export const serviceInstances = pgTable("service_instances", {
  id: uuid("id").primaryKey(),
  startedAt: ts("started_at").notNull().defaultNow(),
  heartbeatAt: ts("heartbeat_at").notNull().defaultNow(),
});

/**
 * Read-only shared dashboards: the account, a campaign or one link, shown at /share/{token}. Only the
 * SHA-256 of the token is stored; after a rotation the previous token's hash works until
 * previous_valid_until (the grace period). The password is a Bun.password hash.
 */
export const shares = pgTable(
  "shares",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /** account, campaign or link */
    scope: text("scope").notNull(),
    linkId: uuid("link_id").references(() => links.id, { onDelete: "cascade" }),
    campaignId: uuid("campaign_id").references(() => campaigns.id, { onDelete: "cascade" }),
    reports: text("reports").array().notNull(),
    /** The funnel report's steps (event names in order); null without that report. */
    funnelSteps: text("funnel_steps").array(),
    /** previous or year: the shown reports that can compare do (paths, retention, conversions); null: none. */
    compare: text("compare"),
    enabled: boolean("enabled").notNull().default(true),
    expiresAt: ts("expires_at"),
    tokenHash: text("token_hash").notNull(),
    tokenPrefix: text("token_prefix").notNull(),
    previousTokenHash: text("previous_token_hash"),
    previousValidUntil: ts("previous_valid_until"),
    passwordHash: text("password_hash"),
    allowedOrigins: text("allowed_origins").array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("shares_token_hash_idx").on(t.tokenHash),
    index("shares_previous_token_hash_idx").on(t.previousTokenHash).where(sql`${t.previousTokenHash} IS NOT NULL`),
    index("shares_account_idx").on(t.accountId, t.createdAt),
  ],
);

/**
 * Imports of links (and their history) from other products, run in the background (server/imports):
 * the uploaded file stays under DATA_DIR/imports until the import ends; `position` is the number of
 * data rows done, written in the same transaction as the links those rows created, so a restart after
 * a crash resumes at the first row not done and creates nothing twice.
 */
export const imports = pgTable(
  "imports",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    source: text("source").notNull(),
    status: text("status").notNull().default("queued"),
    onConflict: text("on_conflict").notNull().default("skip"),
    domain: text("domain"),
    fileName: text("file_name"),
    total: integer("total").notNull().default(0),
    position: integer("position").notNull().default(0),
    created: integer("created").notNull().default(0),
    skipped: integer("skipped").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    /** Created under a new code because the original one was taken (on_conflict=rename). */
    renamed: integer("renamed").notNull().default(0),
    clicks: bigint("clicks", { mode: "number" }).notNull().default(0),
    /** The first errors, `{ row, field, message }` (at most 100). */
    errors: jsonb("errors").$type<{ row: number; field: string; message: string }[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: createdAt(),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
  },
  (t) => [
    index("imports_account_idx").on(t.accountId, t.createdAt),
    index("imports_pending_idx").on(t.createdAt).where(sql`${t.status} IN ('queued', 'running')`),
  ],
);

/** Where an imported link came from: one row per (account, source, original short link), so a re-run creates nothing twice. */
export const importOrigins = pgTable(
  "import_origins",
  {
    // No foreign key to accounts: the link's (with its cascade) covers it, and each checked key costs an
    // index lookup per imported row.
    accountId: uuid("account_id").notNull(),
    source: text("source").notNull(),
    originKey: text("origin_key").notNull(),
    linkId: uuid("link_id")
      .notNull()
      .references(() => links.id, { onDelete: "cascade" }),
    importId: uuid("import_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.source, t.originKey] }), index("import_origins_link_idx").on(t.linkId)],
);

/** People who get the account's weekly and/or monthly report by email (server/alerts/), each with their own unsubscribe token (SHA-256). */
export const reportSubscriptions = pgTable(
  "report_subscriptions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    weekly: boolean("weekly").notNull().default(true),
    monthly: boolean("monthly").notNull().default(false),
    unsubscribeTokenHash: text("unsubscribe_token_hash").notNull(),
    /** The first day (YYYY-MM-DD) of the last week and month whose report was sent: the claim of one send per period. */
    weeklySentFor: text("weekly_sent_for"),
    monthlySentFor: text("monthly_sent_for"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("report_subscriptions_token_idx").on(t.unsubscribeTokenHash),
    uniqueIndex("report_subscriptions_email_idx").on(t.accountId, t.email),
  ],
);

/** Alerts on the account or one link (server/alerts/), checked every 15 minutes, at most one per 12 hours. */
export const alerts = pgTable(
  "alerts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    linkId: uuid("link_id").references(() => links.id, { onDelete: "cascade" }),
    /** visitors_above, visitors_below or conversion_drop */
    kind: text("kind").notNull(),
    threshold: doublePrecision("threshold").notNull(),
    recipients: text("recipients").array().notNull().default(sql`'{}'::text[]`),
    enabled: boolean("enabled").notNull().default(true),
    /** Set by the instance that claims a trigger (an UPDATE … WHERE older than 12 hours): one alert per 12 hours, whatever the instances. */
    lastTriggeredAt: ts("last_triggered_at"),
    lastValue: doublePrecision("last_value"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("alerts_account_idx").on(t.accountId, t.createdAt)],
);
