// Serves a fetch-style handler, or a node:http listener, on 127.0.0.1 for interop tests.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Served {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  close(): Promise<void>;
}

export async function serveListener(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Served> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** node:http in front of a `(Request) => Promise<Response>` handler: a closed response aborts `request.signal`. */
export function serveFetch(handler: (request: Request) => Promise<Response>): Promise<Served> {
  return serveListener(async (req, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) { for (const v of value) headers.append(name, v); }
    }
    const body = chunks.length > 0 && req.method !== "GET" && req.method !== "HEAD"
      ? Buffer.concat(chunks)
      : undefined;
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body,
      signal: controller.signal,
    });
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
      return;
    }
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    res.flushHeaders();
    if (response.body === null) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    res.on("close", () => reader.cancel().catch(() => {}));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // The client went away.
    }
    res.end();
  });
}
