import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../src/migrate.ts";

/**
 * Upgrades apply a migration only when its journal time (`when`) is later than the last one the
 * database applied (drizzle's migrator compares times, not names): a migration merged with an earlier
 * time than its predecessor would be skipped, silently, on every database already past it
 * (docs/upgrading.md). Each entry must come later, in index order, than the one before it.
 */
describe("the migrations' journal", () => {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as { entries: Array<{ idx: number; tag: string; when: number }> };

  it("lists the migrations in order, each one later than the one before", () => {
    expect(journal.entries.length).toBeGreaterThan(0);
    journal.entries.forEach((entry, i) => {
      expect(entry.idx, entry.tag).toBe(i);
      expect(entry.tag.startsWith(String(i).padStart(4, "0") + "_"), entry.tag).toBe(true);
      if (i > 0) expect(entry.when, `${entry.tag} must be later than ${journal.entries[i - 1]?.tag}`).toBeGreaterThan(journal.entries[i - 1]?.when ?? 0);
    });
  });
});
