import { loadConfig } from "@fop/kit/config";
import { shutdownTracing } from "@fop/kit/otel";
import { gatewayConfig } from "./config.ts";
import { createGateway } from "./gateway.ts";

let config: ReturnType<typeof loadConfig<typeof gatewayConfig>>;
try {
  config = loadConfig(gatewayConfig);
} catch (err) {
  console.error(`gateway: ${(err as Error).message}`);
  process.exit(2);
}
const app = await createGateway(config);
await app.listen({ host: config.HOST, port: config.PORT });
// SIGTERM: the listener closes and /readyz answers 503 at once; requests received, or still arriving
// on open connections, are answered (those connections then closed); then exit. Forced after 20 s:
// within Kubernetes' terminationGracePeriodSeconds (30) after the preStop sleep (5).
const stop = async () => {
  setTimeout(() => process.exit(1), 20_000).unref();
  await app.close();
  await shutdownTracing();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
