/**
 * What one idle `subscriptions/listen` stream keeps in the server's heap: live heap after full GCs
 * with 0 and with `--streams` streams (each on its own TCP connection, as in idle_listen.mjs), per
 * stream; with `--snapshots=PREFIX`, heap snapshots at both points, and the objects new in the
 * second (by V8 object id) summed by the nearest owner up their retainer chain (Node's socket,
 * parser, request and response; our classes; the file of the closure that holds them).
 * `node bench/http/idle_listen_heap.mjs [--streams=2000] [--dist=DIR …] [--snapshots=PREFIX]`
 * (several `--dist`: measured one after the other, e.g. main's dist/ and this one's).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { sleep } from "../lib/stats.mjs";
import { modernBody, rawPost } from "./raw_post.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const streams = Number(option("streams", 2_000));
const prefix = option("snapshots", "");
const dists = argv.filter((a) => a.startsWith("--dist=")).map((a) => a.slice(7));
const serverFile = fileURLToPath(new URL("features_heap_server.mjs", import.meta.url));

async function measure(dist) {
  const child = spawn(process.execPath, ["--expose-gc", serverFile], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...(dist ? { DIST: dist } : {}), MAX_STREAMS: String(streams + 10) },
  });
  const waiting = [];
  createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.(line));
  const next = () => new Promise((resolve) => waiting.push(resolve));
  const url = await next();
  const ask = (line) => (child.stdin.write(`${line}\n`), next());
  const heapUsed = async () => JSON.parse((await ask("gc")).slice(4)).heapUsed;
  const listen = (id) =>
    rawPost(url, modernBody(id, "subscriptions/listen", { notifications: { toolsListChanged: true } }), {
      "Mcp-Method": "subscriptions/listen",
    });
  try {
    // Warm every path once (a call, a stream opened and dropped), so one-time allocations are in the baseline.
    const warm = await rawPost(url, modernBody(0, "tools/call", { name: "echo", arguments: { text: "x" } }), {
      "Mcp-Method": "tools/call",
      "Mcp-Name": "echo",
    });
    warm.res.resume();
    const once = await listen(1);
    once.res.resume();
    await sleep(100);
    once.req.destroy();
    await sleep(500);
    const before = await heapUsed();
    const tag = (dist ?? "this").replace(/[^a-z0-9]+/gi, "_");
    if (prefix) await ask(`snap ${prefix}-${tag}-0.heapsnapshot`);
    const open = [];
    for (let id = 2; id < streams + 2; id += 100) {
      const wave = [];
      for (let i = id; i < Math.min(id + 100, streams + 2); i++) wave.push(listen(i));
      for (const opened of await Promise.all(wave)) {
        if (opened.res.statusCode !== 200) {
          throw new Error(`subscriptions/listen answered HTTP ${opened.res.statusCode}`);
        }
        opened.res.pause();
        open.push(opened);
      }
    }
    await sleep(1_000);
    const after = await heapUsed();
    if (prefix) await ask(`snap ${prefix}-${tag}-${streams}.heapsnapshot`);
    for (const { req } of open) req.destroy();
    const files = prefix
      ? [`${prefix}-${tag}-0.heapsnapshot`, `${prefix}-${tag}-${streams}.heapsnapshot`]
      : [];
    return { perStream: (after - before) / streams, files };
  } finally {
    child.kill("SIGTERM");
  }
}

/** Bytes per stream of the objects new in `afterFile`, by owner. */
function owners(beforeFile, afterFile) {
  const old = new Set();
  const a = readSnapshot(beforeFile);
  for (let i = 0; i < a.count; i++) old.add(a.id(i));
  const g = readSnapshot(afterFile);
  const NODE =
    /^(Socket|TCP|HTTPParser|IncomingMessage|ServerResponse|ReadableState|WritableState|HTTPServerAsyncResource)$/;
  const category = (i) => {
    const type = g.type(i), name = g.name(i);
    if (type === "synthetic" && name.startsWith("Node /")) return "Node: socket, parser, request, response";
    if (type === "object" && NODE.test(name)) return "Node: socket, parser, request, response";
    if (type === "closure" && (name === "socketListenerWrap" || name === "native_bind")) {
      return "Node: socket, parser, request, response";
    }
    if (type === "object" && /^[A-Z]\w+$/.test(name) && g.ours(i)) return name;
    const file = type === "closure" ? g.file(i) : undefined;
    return file && /\/(src|adapters)\//.test(file)
      ? `closures of ${file.replace(/.*\/(src|adapters)\//, "$1/")}`
      : undefined;
  };
  const memo = new Map();
  const owner = (i, depth) => {
    if (memo.has(i)) return memo.get(i);
    memo.set(i, undefined);
    let found = category(i);
    for (const from of found === undefined && depth < 8 ? g.retainers(i) : []) {
      if (old.has(g.id(from)) && category(from) === undefined) continue;
      found = owner(from, depth + 1);
      if (found) break;
    }
    memo.set(i, found);
    return found;
  };
  const sums = new Map();
  for (let i = 0; i < g.count; i++) {
    if (old.has(g.id(i))) continue;
    const key = owner(i, 0) ?? `other (${g.type(i)})`;
    sums.set(key, (sums.get(key) ?? 0) + g.size(i));
  }
  return [...sums].sort((x, y) => y[1] - x[1]).map(([key, bytes]) => [key, bytes / streams]);
}

function readSnapshot(path) {
  const s = JSON.parse(readFileSync(path, "utf8"));
  const m = s.snapshot.meta;
  const nf = m.node_fields.length, ef = m.edge_fields.length;
  const [iType, iName, iId, iSize, iEdges] = ["type", "name", "id", "self_size", "edge_count"].map((f) =>
    m.node_fields.indexOf(f)
  );
  const [eType, eName, eTo] = ["type", "name_or_index", "to_node"].map((f) => m.edge_fields.indexOf(f));
  const count = s.nodes.length / nf;
  const first = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) (first[i] = e), (e += s.nodes[i * nf + iEdges] * ef);
  first[count] = s.edges.length;
  const node = (i, f) => s.nodes[i * nf + f];
  const edgeName = (e) => s.strings[s.edges[e + eName]];
  const retainers = Array.from({ length: count }, () => undefined);
  for (let i = 0; i < count; i++) {
    for (let e = first[i]; e < first[i + 1]; e += ef) {
      if (m.edge_types[0][s.edges[e + eType]] === "weak") continue;
      const to = s.edges[e + eTo] / nf;
      (retainers[to] ??= []).push(i);
    }
  }
  const out = (i, name) => {
    for (let e = first[i]; e < first[i + 1]; e += ef) if (edgeName(e) === name) return s.edges[e + eTo] / nf;
  };
  const file = (closure) => {
    const shared = out(closure, "shared");
    const script = shared === undefined
      ? undefined
      : out(shared, "script_or_debug_info") ?? out(shared, "script");
    const name = script === undefined ? undefined : out(script, "name");
    return name === undefined ? undefined : s.strings[node(name, iName)];
  };
  return {
    count,
    type: (i) => m.node_types[0][node(i, iType)],
    name: (i) => s.strings[node(i, iName)],
    id: (i) => node(i, iId),
    size: (i) => node(i, iSize),
    retainers: (i) => retainers[i] ?? [],
    file,
    // A class of ours: its constructor's script is under src/ or adapters/.
    ours: (i) => {
      const map = out(i, "map");
      const prototype = map === undefined ? undefined : out(map, "prototype");
      const ctor = prototype === undefined ? undefined : out(prototype, "constructor");
      const where = ctor === undefined ? undefined : file(ctor);
      return where !== undefined && /\/(src|adapters)\//.test(where);
    },
  };
}

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
for (const dist of dists.length ? dists : [undefined]) {
  const loadBefore = load();
  const { perStream, files } = await measure(dist);
  console.log(
    `${dist ?? "this checkout"}: live heap ${
      (perStream / 1024).toFixed(2)
    } KiB per idle listen stream (${streams} streams; load ${loadBefore} → ${load()})`,
  );
  if (files.length) {
    for (const [key, bytes] of owners(...files)) {
      if (bytes >= 8) console.log(`  ${bytes.toFixed(0).padStart(6)} B  ${key}`);
    }
  }
}
