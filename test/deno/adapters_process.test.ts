/**
 * The process adapter conformance suite and the protocol matrix, registered on Deno (deno test).
 * Every behaviour lives in test/conformance/; this file holds only what is Deno's.
 * @module
 */
import { spawnProcess } from "../../adapters/deno/mod.ts";
import { contextMatrixSuite } from "../conformance/context_matrix_suite.ts";
import { processAdapterSuite } from "../conformance/process_suite.ts";
import type { TestApi } from "../conformance/test_api.ts";
import { processAdapterOn } from "../conformance/runtimes.ts";

const api: TestApi = {
  test: (name, fn) => Deno.test({ name, fn, sanitizeOps: false, sanitizeResources: false }),
};
// Deno cannot abandon a stdout write the OS is blocking on (see adapters/deno/mod.ts): no exit of its own.
const own = { spawnProcess, stdioExitsAfterDestroy: false, env: (name: string) => Deno.env.get(name) };
processAdapterSuite(api, processAdapterOn("deno", { ...own, memoryBytes: () => Deno.memoryUsage().rss }));
contextMatrixSuite(api, { runtime: "deno", spawnProcess }, "bun");
