import { createBitlySource } from "./bitly.ts";
import { createDubSource } from "./dub.ts";
import { createKuttSource } from "./kutt.ts";
import { createShlinkSource } from "./shlink.ts";
import type { Source, SourceOptions } from "./source.ts";
import { createYourlsSource } from "./yourls.ts";

/** The live sources of `importer migrate --from …` (CONTRACT §23), by name. */
export const SOURCES: Record<string, (options: SourceOptions) => Source> = {
  shlink: createShlinkSource,
  yourls: createYourlsSource,
  kutt: createKuttSource,
  dub: createDubSource,
  bitly: createBitlySource,
};
