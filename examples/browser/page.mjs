// @ts-check
// The page: a ContextClient over a MessagePort to the Worker, once per era.
import { ContextClient, EraCache } from "onemodelcontext";
import { fromMessagePort } from "onemodelcontext/message-port";

const out = /** @type {HTMLElement} */ (document.querySelector("#out"));
/** @param {string} line */
const log = (line) => (out.textContent += line + "\n");

for (const era of /** @type {const} */ (["modern", "legacy"])) {
  const worker = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module" });
  const { port1, port2 } = new MessageChannel();
  worker.postMessage(null, [port2]);
  const client = await ContextClient.connect(fromMessagePort(port1), { era, eraCache: new EraCache() });
  const tools = await client.listTools();
  const result = await client.callTool("shout", { text: `hello from the ${era} era` });
  const [first] = result.content;
  log(
    `${client.era} ${client.protocolVersion} ${client.serverInfo?.name}: tools=${
      tools.map((t) => t.name).join(",")
    } -> ${first?.type === "text" ? first.text : ""}`,
  );
  await client.close();
  worker.terminate();
}
log("done");
