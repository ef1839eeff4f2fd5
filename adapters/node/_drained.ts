/**
 * `drained`: the wait of a writer to a `node:http` response whose `write()` returned false.
 * @module
 */
import type { ServerResponse } from "node:http";

/** Resolves at `'drain'`, or when the response closes first. */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
