/**
 * The OAuth client and bearer check on Bun (test/conformance/auth_suite.ts).
 * @module
 */
import { test } from "bun:test";
import { authSuite } from "../conformance/auth_suite.ts";

authSuite({ test: (name, fn, timeoutMs = 30_000) => void test(name, fn, timeoutMs) }, "bun");
