import { countryName, languageName } from "./Breakdown.tsx";

/** The breakdowns every analytics view shows (CONTRACT §8 and §21), in this order, with their headings. */
export const BREAKDOWNS = [
  { name: "country", title: "Countries", label: countryName },
  { name: "platform", title: "Platforms" },
  { name: "browser", title: "Browsers" },
  { name: "device", title: "Devices" },
  { name: "language", title: "Languages", label: languageName },
  { name: "referrer", title: "Referrers" },
] as const satisfies ReadonlyArray<{ name: string; title: string; label?: (value: string) => string }>;
