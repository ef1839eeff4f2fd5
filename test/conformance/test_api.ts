/**
 * The test runner as the conformance suites see it: vitest, `deno test` and `bun test` each fill it in.
 * @module
 */

/** Registers one test; `timeoutMs` where the runner takes one. */
export interface TestApi {
  test(name: string, fn: () => Promise<void> | void, timeoutMs?: number): void;
}
