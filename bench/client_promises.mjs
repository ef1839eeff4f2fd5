#!/usr/bin/env node
/**
 * Promises the client makes per round trip through a real child process (async_hooks, deterministic
 * beside the noisy rates), ours against another built checkout:
 *   node bench/client_promises.mjs --baseline=DIR [--era=modern] [--calls=2000]
 */
import { createHook } from "node:async_hooks";
import { baselineImpl, IMPLS } from "./lib/impls.mjs";
import { ECHO_TEXT } from "./lib/payloads.mjs";

const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const era = option("era", "modern");
const calls = Number(option("calls", 2000));
let promises = 0;
const hook = createHook({ init: (_id, type) => void (type === "PROMISE" && promises++) });
const measure = async (client, inFlight) => {
  const worker = async (n) => {
    for (let i = 0; i < n; i++) await client.call("echo", { text: ECHO_TEXT });
  };
  promises = 0;
  hook.enable();
  await Promise.all(Array.from({ length: inFlight }, () => worker(calls / inFlight)));
  hook.disable();
  return promises / calls;
};
const impls = {
  before: baselineImpl(option("baseline", "../perfbase")),
  after: IMPLS.find((i) => i.id === "ours"),
};
for (const [name, impl] of Object.entries(impls)) {
  const client = await impl.connect({ era });
  await measure(client, 1);
  console.log(
    `${name.padEnd(6)} ${era}: client promises per round trip, 1 in flight ${
      (await measure(client, 1)).toFixed(2)
    }, 64 in flight ${(await measure(client, 64)).toFixed(2)}`,
  );
  await client.close();
}
