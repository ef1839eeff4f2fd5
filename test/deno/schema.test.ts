/**
 * The schema conformance suite (test/conformance/schema_suite.ts), registered on Deno.
 * @module
 */
import { schemaSuite } from "../conformance/schema_suite.ts";

schemaSuite({ test: (name, fn) => Deno.test(name, fn) }, "deno");
