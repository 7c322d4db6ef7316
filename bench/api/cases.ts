/** The requests each benchmark case sends. Shared by the runner (labels, goals) and the load worker (requests). */

export type CaseName = "healthz" | "list" | "list-alias" | "list-url" | "show" | "create";

/** One request to send: a path on the server, and a form body for POST. */
export type BenchRequest = { method: "GET" | "POST"; path: string; form?: string };

/** What the request builders need to know about the seeded database. */
export type CaseParams = {
  domainId: number;
  /** Seeded link ids are 1..linkCount. */
  linkCount: number;
  /** Makes created URLs unique across runs. */
  runTag: string;
};

/** A goal a case is compared against; `undefined` for cases without one. */
export type Goal = { metric: "p95" | "rps"; limit: number };

export type CaseDef = {
  label: string;
  goal?: Goal;
  /** The `n`-th request of a run (0-based, counted over warm-up and measurement). */
  build(n: number, params: CaseParams): BenchRequest;
};

export const CASES: Record<CaseName, CaseDef> = {
  healthz: {
    label: "baseline GET /healthz (no DB)",
    build: () => ({ method: "GET", path: "/healthz" }),
  },
  list: {
    label: "list default",
    goal: { metric: "p95", limit: 20 },
    build: () => ({ method: "GET", path: "/api/v1/links" }),
  },
  "list-alias": {
    label: "list search alias a12345",
    build: () => ({ method: "GET", path: "/api/v1/links?search=a12345&search_by=alias" }),
  },
  "list-url": {
    label: "list search url example-1234.test",
    goal: { metric: "p95", limit: 50 },
    build: () => ({ method: "GET", path: "/api/v1/links?search=example-1234.test&search_by=url" }),
  },
  show: {
    label: "show random id",
    goal: { metric: "p95", limit: 20 },
    build: (_n, p) => ({ method: "GET", path: `/api/v1/links/${1 + Math.floor(Math.random() * p.linkCount)}` }),
  },
  create: {
    label: "create (random alias)",
    goal: { metric: "rps", limit: 1000 },
    build: (n, p) => ({
      method: "POST",
      path: "/api/v1/links",
      form: new URLSearchParams({ url: `https://new.example/${p.runTag}/${n}`, domain_id: String(p.domainId) }).toString(),
    }),
  },
};

/** The order cases run in: the baseline first, writes last so the reads see exactly the seeded table. */
export const CASE_ORDER: CaseName[] = ["healthz", "list", "list-alias", "list-url", "show", "create"];
