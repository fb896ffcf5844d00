import { defineConfig } from "vitest/config";

/** The conformance suite against the real agent CLIs (`npm run test:backends`). */
export default defineConfig({
  test: {
    include: ["test/backends-real/**/*.conformance.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
