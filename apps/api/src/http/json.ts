import { HttpError } from "../errors.ts";
import { normalizeBody } from "./form.ts";

/**
 * The deepest JSON a request may send, on REST and tRPC alike: far more than any input needs (a link
 * with targeting is 3 levels, 4 in a tRPC batch), and shallow enough that nothing past the parser can
 * run out of stack on it (docs/api.md). Forms have their own limit (3 levels, `form.ts`).
 */
export const MAX_JSON_DEPTH = 32;
export const JSON_TOO_DEEP_MESSAGE = `The JSON is nested too deeply (at most ${MAX_JSON_DEPTH} levels).`;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether `text` opens more than `max` arrays and objects inside each other, read before any parser
 * sees it: one pass over the characters, brackets inside strings not counted, no recursion (V8's own
 * JSON.parse and everything recursive after it would otherwise meet a stack overflow first). Text that
 * is not JSON at all is left for the parser to refuse.
 */
export function isJsonTooDeep(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** A 400 `bad_request` when `text` is nested deeper than `MAX_JSON_DEPTH` (REST bodies, tRPC bodies and `input`). */
export function assertJsonDepth(text: string | null | undefined): void {
  if (text && isJsonTooDeep(text)) throw new HttpError(400, "bad_request", JSON_TOO_DEEP_MESSAGE);
}

/**
 * A JSON request body as the REST routes take it: depth-checked, parsed, `""` → `null` and prototype
 * keys dropped (`normalizeBody`); an empty body is `{}`. Throws the depth's HttpError, or the parser's
 * SyntaxError (the caller answers that with its own sentence, never the parser's).
 */
export function parseJsonBody(text: string): unknown {
  assertJsonDepth(text);
  const trimmed = text.trim();
  return trimmed === "" ? {} : normalizeBody(JSON.parse(trimmed));
}
