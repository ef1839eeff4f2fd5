/**
 * The MessagePort conformance suite (test/conformance/message_port_suite.ts), registered on Deno.
 * @module
 */
import { messagePortSuite } from "../conformance/message_port_suite.ts";

messagePortSuite({
  test: (name, fn) => Deno.test({ name, fn, sanitizeOps: false, sanitizeResources: false }),
}, "deno");
