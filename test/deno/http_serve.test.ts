/**
 * The HTTP serve suite (test/conformance/http_serve_suite.ts) on `Deno.serve`, through `serve` from
 * `adapters/http/deno.ts`.
 * @module
 */
import { serve } from "../../adapters/http/deno.ts";
import { httpServeSuite } from "../conformance/http_serve_suite.ts";

httpServeSuite({ test: (name, fn) => Deno.test(name, fn) }, "Deno", serve);
