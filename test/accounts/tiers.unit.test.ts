// requireTier: the one tier gate of the features (custom aliases, campaigns, uploads). Pure: no stores.
import { expect, test } from "bun:test";
import { AppError } from "../../server/errors";
import { requireTier } from "../../server/tiers";

test("a tier at or above the required one passes; a lower one is 403 TIER_UPGRADE_REQUIRED naming the tier", () => {
  expect(() => requireTier("growth", "growth", "Campaigns need")).not.toThrow();
  expect(() => requireTier("scale", "basic", "Custom aliases need")).not.toThrow();
  let err: unknown;
  try {
    requireTier("basic", "growth", "Campaigns need", "body.campaign_id");
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(AppError);
  expect(err).toMatchObject({
    code: "TIER_UPGRADE_REQUIRED",
    message: "Campaigns need the Growth tier or higher",
    details: { required_tier: "growth", field: "body.campaign_id" },
  });
  expect(() => requireTier("free", "basic", "Custom aliases need")).toThrow("Custom aliases need the Basic tier or higher");
});
