import { AccountStatsInput, getAccountStats, getDomainVisits, getStats, GetStatsInput, getStatsSummary, StatsSummaryInput, DomainVisitsInput } from "@shortener/core";
import { domainVisitsSummaryJson, statRowSerializer, summaryJson } from "../serialize/stats.ts";
import { router, scoped } from "./init.ts";
import { toListJson } from "./lists.ts";

/**
 * CONTRACT §8, §21 on tRPC: the same rows and objects as REST's `data`. `stats.get`: one series of one
 * of the caller's links; `stats.summary`: its counts over the range; `stats.account`: every link at
 * once (the summary object for `summary`, else a list like `stats.get`).
 */
export const statsRouter = router({
  get: scoped("stats:read", "viewer")
    .input(GetStatsInput)
    .query(async ({ ctx, input }) => toListJson(await getStats({ ctx: ctx.core, input }), statRowSerializer(ctx.json.shortUrl))),
  summary: scoped("stats:read", "viewer")
    .input(StatsSummaryInput)
    .query(async ({ ctx, input }) => summaryJson(await getStatsSummary({ ctx: ctx.core, input }))),
  account: scoped("stats:read", "viewer")
    .input(AccountStatsInput)
    .query(async ({ ctx, input }) => {
      const result = await getAccountStats({ ctx: ctx.core, input });
      return result.kind === "summary" ? summaryJson(result) : toListJson(result, statRowSerializer(ctx.json.shortUrl));
    }),
});

/** tRPC `domains.visits` (CONTRACT §21): a domain's orphan visits, the summary object or a list. */
export const domainVisitsProcedure = scoped("stats:read", "viewer")
  .input(DomainVisitsInput)
  .query(async ({ ctx, input }) => {
    const result = await getDomainVisits({ ctx: ctx.core, input });
    return result.kind === "summary" ? domainVisitsSummaryJson(result) : toListJson(result, statRowSerializer(ctx.json.shortUrl));
  });
