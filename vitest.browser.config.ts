/**
 * The browser suite: every `test/browser/**\/*.test.ts`, run by vitest in headless Debian Chromium
 * through Playwright. Playwright never downloads a browser here; it launches `/usr/bin/chromium`
 * (override with CHROMIUM_PATH). Module Workers (`new Worker(new URL("./x.ts", import.meta.url),
 * { type: "module" })`) are served by vite like any other module.
 */
import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default defineConfig({
  worker: { format: "es" },
  // `import … from "onemodelcontext"` in a test resolves through package.json `exports` to the source
  // (as tsconfig's customConditions does), never to a dist/ that may be stale; then Vite's defaults.
  resolve: { conditions: ["onemodelcontext-source", "module", "browser", "development|production"] },
  test: {
    include: ["test/browser/**/*.test.ts"],
    // Our HTTP server in Node for the HTTP client's browser test (test/browser/http_client.test.ts).
    globalSetup: ["test/browser/http_client_setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    browser: {
      enabled: true,
      headless: true,
      screenshotFailures: false,
      provider: playwright({
        launchOptions: {
          executablePath,
          headless: true,
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
          ],
        },
      }),
      instances: [{ browser: "chromium" }],
    },
  },
});
