import { getStats, GetStatsInput, type StatRow } from "@shortener/core";
import { router, scoped } from "./init.ts";
import { toListJson } from "./lists.ts";

const toRowJson = (row: StatRow) => ({ value: row.value, count: row.count });

/** CONTRACT §8 on tRPC: one series of one of the caller's links, the same rows as REST's `data`. */
export const statsRouter = router({
  get: scoped("stats:read")
    .input(GetStatsInput)
    .query(async ({ ctx, input }) => toListJson(await getStats({ ctx: ctx.core, input }), toRowJson)),
});
