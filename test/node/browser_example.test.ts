/** The browser example as a person opens it: served on loopback, loaded in headless Chromium. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { chromium } from "playwright";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";

const PORT = 20_000 + (process.pid % 10_000);
let server: ChildProcess;

beforeAll(async () => {
  ensureDist();
  server = spawn(process.execPath, [join(ROOT, "examples/browser/serve.mjs")], {
    env: { ...process.env, PORT: String(PORT) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => server.stdout!.once("data", () => resolve()));
}, 120_000);
afterAll(() => server?.kill());

it("examples/browser: a client in the page talks to a server in a module Worker, in both eras", async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${PORT}/examples/browser/`);
    await page.waitForFunction(() => document.querySelector("#out")?.textContent?.includes("done"), null, {
      timeout: 30_000,
    });
    const text = await page.textContent("#out");
    expect(errors).toEqual([]);
    expect(text).toContain("modern 2026-07-28 worker-demo: tools=shout -> HELLO FROM THE MODERN ERA");
    expect(text).toContain("legacy 2025-11-25 worker-demo: tools=shout -> HELLO FROM THE LEGACY ERA");
  } finally {
    await browser.close();
  }
});
