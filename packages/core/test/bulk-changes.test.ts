import { describe, expect, it } from "vitest";
import { MAX_PAYLOAD_BYTES, payloadChunks, type LinkKey } from "../src/changes/changes.ts";
import { foldIdErrors } from "../src/links/bulk-ids.ts";
import { BulkUpdateLinksInput, MAX_BULK_IDS, UpdateLinkInput } from "../src/links/schemas.ts";

const keys = (n: number, aliasLength: number): LinkKey[] => Array.from({ length: n }, (_, i) => ({ id: 2_000_000_000 + i, domainId: 2_000_000_000, alias: `${i}`.padEnd(aliasLength, "x") }));

describe("a bulk change's notification (packages/core/src/changes/changes.ts)", () => {
  it.each([
    { name: "100 links with ordinary aliases: one notification", keys: keys(MAX_BULK_IDS, 12), chunks: 1 },
    { name: "100 renamed links (200 keys) with ordinary aliases: one notification", keys: keys(2 * MAX_BULK_IDS, 8), chunks: 1 },
    { name: "100 links with 255-character aliases: as few as fit under Postgres's 8,000 bytes", keys: keys(MAX_BULK_IDS, 255), chunks: 4 },
  ])("$name", ({ keys: all, chunks }) => {
    const out = payloadChunks(all);
    expect(out).toHaveLength(chunks);
    for (const chunk of out) expect(Buffer.byteLength(JSON.stringify({ kind: "links", links: chunk }))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(out.flat()).toEqual(all.map(({ id, domainId, alias }) => [id, domainId, alias]));
  });
});

describe("bulk ids", () => {
  it.each([
    { input: { ids: [3, 1, 3, 2, 1] }, ids: [3, 1, 2], errors: {} },
    { input: { ids: [] }, ids: undefined, errors: { ids: ["The ids field is required."] } },
    { input: {}, ids: undefined, errors: { ids: ["The ids field is required."] } },
    { input: { ids: [1, 0, -1, 1.5] }, ids: undefined, errors: { ids: ["The ids must be positive integers."] } },
    { input: { ids: [1, "x", 2] }, ids: undefined, errors: { ids: ["The ids must be positive integers."] } },
    { input: { ids: Array.from({ length: 101 }, (_, i) => i + 1) }, ids: undefined, errors: { ids: ["The ids may not have more than 100 items."] } },
  ])("$input.ids → $ids", ({ input, ids, errors }) => {
    const result = BulkUpdateLinksInput.safeParse(input);
    expect(result.success ? result.data.ids : undefined).toEqual(ids);
    const fields: Record<string, string[]> = {};
    for (const issue of result.error?.issues ?? []) (fields[issue.path.map(String).join(".")] ??= []).push(issue.message);
    foldIdErrors(fields);
    expect(fields).toEqual(errors);
  });
});

describe("pixel ids: copies of one id count once against the limit of 100", () => {
  it.each([
    { name: "150 copies of one id", ids: Array.from({ length: 150 }, () => 7), out: [7], error: undefined },
    { name: "100 distinct ids, each twice", ids: Array.from({ length: 200 }, (_, i) => (i % 100) + 1), out: Array.from({ length: 100 }, (_, i) => i + 1), error: undefined },
    { name: "101 distinct ids", ids: Array.from({ length: 101 }, (_, i) => i + 1), out: undefined, error: "The pixel ids may not have more than 100 items." },
  ])("$name", ({ ids, out, error }) => {
    const result = UpdateLinkInput.safeParse({ pixel_ids: ids });
    expect(result.success ? result.data.pixel_ids : undefined).toEqual(out);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(error ? [error] : undefined);
  });
});
