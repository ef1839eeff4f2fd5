/**
 * The process adapter conformance suite and the protocol matrix, registered on Deno (deno test).
 * Every behaviour lives in test/conformance/; this file holds only what is Deno's.
 * @module
 */
import { spawnProcess } from "../../adapters/deno.ts";
import { contextMatrixSuite } from "../conformance/context_matrix_suite.ts";
import { processAdapterSuite, type TestApi } from "../conformance/process_suite.ts";
import { processAdapterOn } from "../conformance/runtimes.ts";

const api: TestApi = { test: (name, fn) => Deno.test({ name, fn, sanitizeOps: false, sanitizeResources: false }) };
processAdapterSuite(
  api,
  processAdapterOn("deno", {
    spawnProcess,
    // Deno cannot abandon a stdout write the OS is blocking on (see adapters/deno.ts).
    stdioExitsAfterDestroy: false,
    memoryBytes: () => Deno.memoryUsage().rss,
    env: (name) => Deno.env.get(name),
  }),
);
contextMatrixSuite(api, { runtime: "deno", spawnProcess }, "bun");
