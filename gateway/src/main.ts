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
const stop = async () => {
  setTimeout(() => process.exit(1), 15_000).unref();
  await app.close();
  await shutdownTracing();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
