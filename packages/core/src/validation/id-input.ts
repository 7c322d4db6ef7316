import { z } from "zod";

/**
 * The id of one resource, as typed callers (tRPC) send it: a JSON number, a positive 32-bit integer.
 * REST reads ids from the path instead (`apps/api/src/http/routes.ts`, `idParam`).
 */
export const IdInput = z.object({
  id: z
    .number({ error: "The id must be an integer." })
    .int({ error: "The id must be an integer." })
    .min(1, { error: "The id must be at least 1." })
    .max(2_147_483_647, { error: "The id must not be greater than 2147483647." }),
});
export type IdInput = z.input<typeof IdInput>;
