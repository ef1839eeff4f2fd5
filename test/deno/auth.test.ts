/**
 * The OAuth client and bearer check on Deno (test/conformance/auth_suite.ts).
 * @module
 */
import { authSuite } from "../conformance/auth_suite.ts";

authSuite({ test: (name, fn) => Deno.test(name, fn) }, "deno");
