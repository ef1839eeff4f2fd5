/**
 * The process adapter conformance suite and the protocol matrix, registered on Node (vitest).
 * Every behaviour lives in test/conformance/; this file holds only what is Node's.
 */
import { beforeAll, test } from "vitest";
import { spawnProcess } from "../../adapters/node.ts";
import { contextMatrixSuite } from "../conformance/context_matrix_suite.ts";
import { processAdapterSuite, type TestApi } from "../conformance/process_suite.ts";
import { processAdapterOn } from "../conformance/runtimes.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

beforeAll(() => ensureDist(), 120_000);

const api: TestApi = { test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) };
processAdapterSuite(
  api,
  processAdapterOn("node", {
    spawnProcess,
    stdioExitsAfterDestroy: true,
    memoryBytes: () => process.memoryUsage().arrayBuffers,
    env: (name) => process.env[name],
  }),
);
contextMatrixSuite(api, { runtime: "node", spawnProcess }, "deno");
contextMatrixSuite(api, { runtime: "node", spawnProcess }, "node");
