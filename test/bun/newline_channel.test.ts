/**
 * The NewlineChannel conformance suite (test/conformance/newline_channel_suite.ts), registered on Bun.
 * @module
 */
import { test } from "bun:test";
import { newlineChannelSuite } from "../conformance/newline_channel_suite.ts";

newlineChannelSuite({ test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) }, "bun");
