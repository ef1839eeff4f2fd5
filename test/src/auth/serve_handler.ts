/** Serves a fetch handler on 127.0.0.1 with `node:http`, for tests that need real sockets. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Serves `handler` on 127.0.0.1 with `node:http`; returns the origin and a close function. */
export async function serveHandler(
  handler: (request: Request, origin: string) => Response | Promise<Response>,
): Promise<{ origin: string; close(): Promise<void> }> {
  let origin = "";
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
      const request = new Request(`${origin}${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        ...(body === undefined ? {} : { body }),
      });
      const response = await handler(request, origin);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
