import { afterAll, describe, expect, it } from "vitest";
import { openDb, queryRows, sql, type Database } from "../src/index.ts";

const opened: Database[] = [];
afterAll(async () => {
  await Promise.all(opened.map((d) => d.close()));
});

async function sharedBuffers(options: Parameters<typeof openDb>[0]): Promise<string | undefined> {
  const database = await openDb(options);
  opened.push(database);
  const [row] = await queryRows<{ shared_buffers: string }>(database.db, sql`show shared_buffers`);
  return row?.shared_buffers;
}

describe("openDb on PGlite", () => {
  it("starts with the given settings for this instance only, and PGlite's own otherwise", async () => {
    expect(await sharedBuffers({ dataDir: undefined, pgliteSettings: { shared_buffers: "16MB" } })).toBe("16MB");
    expect(await sharedBuffers({ dataDir: undefined })).toBe("128MB");
  });
});
