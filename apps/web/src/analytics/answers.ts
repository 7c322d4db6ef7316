import type { Outputs } from "../trpc.ts";

/** `stats.account` and `domains.visits` answer `name=summary` with an object and every other name with a list (CONTRACT §21). */
type Answer = Outputs["stats"]["account"] | Outputs["domains"]["visits"] | Outputs["stats"]["get"];
type Rows = Extract<Answer, { data: unknown }>["data"];

/** A list answer's rows ([] while loading). */
export function rowsOf(answer: Answer | undefined): Rows {
  return answer && "data" in answer ? answer.data : [];
}

/** `stats.account`'s summary object, when that is what came. */
export function accountSummaryOf(answer: Outputs["stats"]["account"] | undefined): Extract<Outputs["stats"]["account"], { clicks: number }> | undefined {
  return answer && "clicks" in answer ? answer : undefined;
}

/** `domains.visits`'s summary object, when that is what came. */
export function domainSummaryOf(answer: Outputs["domains"]["visits"] | undefined): Extract<Outputs["domains"]["visits"], { not_found: number }> | undefined {
  return answer && "not_found" in answer ? answer : undefined;
}
