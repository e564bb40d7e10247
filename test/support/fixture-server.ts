/**
 * Serves the Node-built test rounds to the workerd tests over loopback HTTP
 * (GET /<name>.json). Large JSON bindings make every workerd test process
 * slow to start and to stop, so only this server's URL is a binding.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export async function startFixtureServer(fixtures: Record<string, unknown>): Promise<string> {
  const bodies = new Map(Object.entries(fixtures).map(([k, v]) => [`/${k}.json`, JSON.stringify(v)]));
  const server = createServer((req, res) => {
    const body = bodies.get(req.url ?? "");
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
