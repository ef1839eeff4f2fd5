/**
 * The process adapter conformance suite and the protocol matrix, registered on Bun (bun test).
 * Every behaviour lives in test/conformance/; this file holds only what is Bun's.
 * @module
 */
import { beforeAll, test } from "bun:test";
import { spawnProcess } from "../../adapters/bun/mod.ts";
import { contextMatrixSuite } from "../conformance/context_matrix_suite.ts";
import { processAdapterSuite } from "../conformance/process_suite.ts";
import type { TestApi } from "../conformance/test_api.ts";
import { processAdapterOn } from "../conformance/runtimes.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

beforeAll(() => ensureDist(), 120_000);

const api: TestApi = { test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) };
// Bun's stdio() unrefs stdout on destroy(), so the server exits by itself; rss after a full GC is Bun's measure.
const memoryBytes = (): number => (Bun.gc(true), process.memoryUsage().rss);
processAdapterSuite(
  api,
  processAdapterOn("bun", {
    spawnProcess,
    stdioExitsAfterDestroy: true,
    memoryBytes,
    env: (name) => process.env[name],
  }),
);
contextMatrixSuite(api, { runtime: "bun", spawnProcess }, "node");
