/**
 * The Deno suites' assertions: the runtime-neutral ones of the conformance suites.
 * @module
 */
export * from "../conformance/assert.ts";
