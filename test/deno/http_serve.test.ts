/**
 * The HTTP serve suite (test/conformance/http_serve_suite.ts) on `Deno.serve`, through `serve` from
 * `adapters/deno/_serve.ts`.
 * @module
 */
import { serve } from "../../adapters/deno/_serve.ts";
import { httpServeSuite } from "../conformance/http_serve_suite.ts";

httpServeSuite({ test: (name, fn) => Deno.test(name, fn) }, "Deno", serve);
