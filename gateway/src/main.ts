import { ablatedLayers } from "@fop/kit/ablation";
import { loadConfig } from "@fop/kit/config";
import { shutdownTracing } from "@fop/kit/otel";
import { gatewayConfig } from "./config.ts";
import { createGateway } from "./gateway.ts";

let config: ReturnType<typeof loadConfig<typeof gatewayConfig>>;
try {
  config = loadConfig(gatewayConfig);
  ablatedLayers(config); // FOP_ABLATE without FOP_BENCH=1: refused here, as a configuration error
} catch (err) {
  console.error(`gateway: ${(err as Error).message}`);
  process.exit(2);
}
const app = await createGateway(config);
await app.listen({ host: config.HOST, port: config.PORT });
// SIGTERM: unready at once (/readyz 503), and for DRAIN_DELAY_MS every response closes its
// connection while requests are still served, so keep-alive clients (whose connections a Service
// keeps on this pod after it left the endpoints) move to other replicas with their next request.
// Then the listener closes; requests received, or still arriving on open connections, are answered
// (those connections then closed); then exit. Forced 20 s after the signal: within Kubernetes'
// terminationGracePeriodSeconds (30) after the preStop sleep (5).
const stop = async () => {
  setTimeout(() => process.exit(1), 20_000).unref();
  app.beginDrain();
  await new Promise((resolve) => setTimeout(resolve, config.DRAIN_DELAY_MS));
  await app.close();
  await shutdownTracing();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
