/**
 * The client feature suite (test/conformance/client_features_suite.ts), registered on Deno.
 * @module
 */
import { clientFeaturesSuite } from "../conformance/client_features_suite.ts";

clientFeaturesSuite({ test: (name, fn) => Deno.test(name, fn) }, "Deno");
