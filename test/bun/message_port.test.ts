/**
 * The MessagePort conformance suite (test/conformance/message_port_suite.ts), registered on Bun.
 * @module
 */
import { test } from "bun:test";
import { messagePortSuite } from "../conformance/message_port_suite.ts";

messagePortSuite({ test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) }, "bun");
