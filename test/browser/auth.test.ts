/**
 * The OAuth client and bearer check in headless Chromium (test/conformance/auth_suite.ts): the core
 * of src/auth runs on web APIs only (fetch types, WebCrypto for PKCE).
 */
import { expect, it, test } from "vitest";
import { authSuite } from "../conformance/auth_suite.ts";

it("runs in a real browser, not in Node", () => {
  expect(navigator.userAgent).toMatch(/Chrome\//);
});

authSuite({ test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) }, "chromium");
