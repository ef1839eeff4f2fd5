/**
 * The NewlineChannel conformance suite (test/conformance/newline_channel_suite.ts), registered in
 * headless Chromium, plus the check that this really is a browser.
 */
import { expect, it, test } from "vitest";
import { newlineChannelSuite } from "../conformance/newline_channel_suite.ts";

it("runs in a real browser, not in Node", () => {
  expect(typeof window).toBe("object");
  expect(typeof document).toBe("object");
  expect(navigator.userAgent).toMatch(/Chrome\//);
});

newlineChannelSuite({ test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) }, "chromium");
