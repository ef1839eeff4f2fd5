import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "test/src/**/*.test.ts",
      "test/adapters/**/*.test.ts",
      "test/node/**/*.test.ts",
      "test/interop/**/*.test.ts",
      "test/faults/**/*.test.ts",
      "test/scaleout/**/*.test.ts",
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
