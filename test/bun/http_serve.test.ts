/**
 * The HTTP serve suite (test/conformance/http_serve_suite.ts) on `Bun.serve`, through `serve` from
 * `adapters/bun/_serve.ts`.
 * @module
 */
import { test } from "bun:test";
import { serve } from "../../adapters/bun/_serve.ts";
import { httpServeSuite } from "../conformance/http_serve_suite.ts";

httpServeSuite({ test: (name, fn, timeoutMs) => void test(name, fn, timeoutMs) }, "Bun", serve);
