/**
 * A minimal node:http → fetch-handler bridge for the SDK 2.4 server (which ships a fetch face and
 * no Node adapter): the body is read whole, the response body streamed with backpressure.
 */
import { Readable } from "node:stream";

export function bridge(fetchHandler) {
  return async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      }
      const controller = new AbortController();
      res.once("close", () => controller.abort());
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
        signal: controller.signal,
      });
      const response = await fetchHandler(request);
      res.statusCode = response.status;
      response.headers.forEach((value, name) => res.setHeader(name, value));
      if (!response.body) return void res.end();
      Readable.fromWeb(response.body).pipe(res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy(error);
    }
  };
}
