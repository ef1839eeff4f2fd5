/**
 * The MessagePort conformance suite (test/conformance/message_port_suite.ts), registered on Node.
 */
import { test } from "vitest";
import { messagePortSuite } from "../../conformance/message_port_suite.ts";

messagePortSuite({ test: (name, fn, timeoutMs = 60_000) => void test(name, fn, timeoutMs) }, "node");
