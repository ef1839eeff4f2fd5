/**
 * The process adapter conformance suite and the protocol matrix, registered on Node (vitest).
 * Every behaviour lives in test/conformance/; this file holds only what is Node's.
 */
import { beforeAll, test } from "vitest";
import { spawnProcess } from "../../../adapters/node/mod.ts";
import { contextMatrixSuite } from "../../conformance/context_matrix_suite.ts";
import { processAdapterSuite } from "../../conformance/process_suite.ts";
import type { TestApi } from "../../conformance/test_api.ts";
import { processAdapterOn } from "../../conformance/runtimes.ts";
import { ensureDist } from "../../fixtures/ours/build_dist.ts";

beforeAll(() => ensureDist(), 120_000);

const api: TestApi = { test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) };
// Node's stdio() closes stdout's pipe handle on destroy(), so the server exits by itself.
const own = { spawnProcess, stdioExitsAfterDestroy: true, env: (name: string) => process.env[name] };
processAdapterSuite(
  api,
  processAdapterOn("node", { ...own, memoryBytes: () => process.memoryUsage().arrayBuffers }),
);
contextMatrixSuite(api, { runtime: "node", spawnProcess }, "deno");
contextMatrixSuite(api, { runtime: "node", spawnProcess }, "node");
