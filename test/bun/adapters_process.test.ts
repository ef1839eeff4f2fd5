/**
 * The process adapter conformance suite and the protocol matrix, registered on Bun (bun test).
 * Every behaviour lives in test/conformance/; this file holds only what is Bun's.
 * @module
 */
import { beforeAll, test } from "bun:test";
import { spawnProcess } from "../../adapters/bun.ts";
import { contextMatrixSuite } from "../conformance/context_matrix_suite.ts";
import { processAdapterSuite, type TestApi } from "../conformance/process_suite.ts";
import { processAdapterOn } from "../conformance/runtimes.ts";
import { ensureDist } from "../fixtures/ours/build_dist.ts";

beforeAll(() => ensureDist(), 120_000);

const api: TestApi = { test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) };
processAdapterSuite(
  api,
  processAdapterOn("bun", {
    spawnProcess,
    stdioExitsAfterDestroy: true,
    memoryBytes: () => {
      Bun.gc(true);
      return process.memoryUsage().rss;
    },
    env: (name) => process.env[name],
  }),
);
contextMatrixSuite(api, { runtime: "bun", spawnProcess }, "node");
