/** Whether a local TCP port can be listened on, checked before a CLI builds or publishes anything. */
import { createServer } from "node:net";
import { UsageError } from "./cli.js";

export async function assertPortFree(port: number, host = "127.0.0.1"): Promise<void> {
  const server = createServer();
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    server.once("error", resolve);
    server.listen(port, host, () => resolve(null));
  });
  if (error === null) {
    await new Promise((r) => server.close(r));
    return;
  }
  const why =
    error.code === "EADDRINUSE" ? "is already in use" : error.code === "EACCES" ? "needs privileges" : `cannot be used (${error.code ?? error.message})`;
  throw new UsageError(`port ${port} on ${host} ${why}: stop what holds it, or choose another with --port N`);
}
