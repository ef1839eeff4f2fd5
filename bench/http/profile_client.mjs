#!/usr/bin/env node
/**
 * One HTTP client against our server, for `node --cpu-prof bench/http/profile_client.mjs`:
 * `[--client=ours|oursL|sdk2ours] [--in-flight=64] [--seconds=5]`. Prints rate and this process's
 * CPU per round trip.
 */
import { ECHO_TEXT } from "../lib/payloads.mjs";
import { CLIENT_PAIRS, startServer } from "./impls.mjs";

const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const pair = CLIENT_PAIRS.find((p) => p.id === option("client", "ours"));
const inFlight = Number(option("in-flight", 64));
const seconds = Number(option("seconds", 5));
const server = await startServer(pair.server);
const client = await pair.connect(server.url);
const loop = async (ms) => {
  let completed = 0;
  const deadline = performance.now() + ms;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (performance.now() < deadline) {
      if ((await client.call("echo", { text: ECHO_TEXT })) !== ECHO_TEXT) {
        throw new Error("echo returned a different text");
      }
      completed++;
    }
  }));
  return completed;
};
await loop(500);
const cpu0 = process.cpuUsage();
const completed = await loop(seconds * 1000);
const cpu = process.cpuUsage(cpu0);
console.log(
  `${pair.id}: ${(completed / seconds).toFixed(0)} rt/s, client CPU ${
    ((cpu.user + cpu.system) / completed).toFixed(0)
  } µs per round trip`,
);
await client.close();
await server.stop();
