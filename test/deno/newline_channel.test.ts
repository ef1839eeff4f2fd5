/**
 * The NewlineChannel conformance suite (test/conformance/newline_channel_suite.ts), registered on Deno.
 * @module
 */
import { newlineChannelSuite } from "../conformance/newline_channel_suite.ts";

newlineChannelSuite({ test: (name, fn) => Deno.test(name, fn) }, "deno");
