/**
 * The client feature suite (test/conformance/client_features_suite.ts), registered on Bun.
 * @module
 */
import { test } from "bun:test";
import { clientFeaturesSuite } from "../conformance/client_features_suite.ts";

clientFeaturesSuite({ test: (name, fn, timeoutMs) => void test(name, fn, timeoutMs) }, "Bun");
