// ESLint (flat config): typescript-eslint's recommended rules, the conventions of STYLE.md §9, and the
// repository's boundaries as rules (tooling/eslint/boundaries.js). `pnpm lint` runs it over the tree.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";
import { boundaries } from "./tooling/eslint/boundaries.js";

export default defineConfig(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/.data/**", "**/.turbo/**", "bench/.out/**", "coverage/**"] },
  { files: ["**/*.{ts,mts,cts,js,mjs,cjs}"] },
  tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-non-null-assertion": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // Tests read JSON answers loosely (`res.body.data.id`).
    files: ["**/test/**", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  boundaries,
);
