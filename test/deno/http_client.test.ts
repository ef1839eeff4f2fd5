/**
 * The HTTP client transport suite (test/conformance/http_client_suite.ts) on Deno: Deno's own fetch,
 * our server served by `Deno.serve` through `serve` from `adapters/deno/mod.ts`.
 * @module
 */
import { serve } from "../../adapters/deno/mod.ts";
import { httpClientSuite } from "../conformance/http_client_suite.ts";

httpClientSuite({ test: (name, fn) => Deno.test(name, fn) }, "Deno", serve);
