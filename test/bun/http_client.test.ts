/**
 * The HTTP client transport suite (test/conformance/http_client_suite.ts) on Bun: Bun's own fetch,
 * our server served by `Bun.serve` through `serve` from `adapters/bun/mod.ts`.
 * @module
 */
import { test } from "bun:test";
import { serve } from "../../adapters/bun/mod.ts";
import { httpClientSuite } from "../conformance/http_client_suite.ts";

httpClientSuite({ test: (name, fn, timeoutMs) => void test(name, fn, timeoutMs) }, "Bun", serve);
