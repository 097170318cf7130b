/**
 * A stand-in for a Kubernetes Service in front of a Deployment's pods, for development and tests
 * only (`npm start -- --replicas N` puts one in front of each process's replicas; the system tests
 * in front of gateway processes): a TCP balancer on a loopback port (a free one unless given) that,
 * like kube-proxy, picks an endpoint per *connection* (round robin) and leaves the connection on it
 * until one side closes it. The caller plays the endpoints controller: add(url) once a pod is ready,
 * remove(url) when it starts terminating (before its preStop sleep and SIGTERM).
 *
 * What it simulates:
 * - Endpoint changes affect new connections only, at once (a real cluster's proxies learn them with
 *   some lag, which the preStop sleep covers). A client's keep-alive connection stays on the pod it
 *   was opened to after that pod left the endpoints, so a terminating gateway still receives
 *   requests on connections it holds: its drain must answer them and get the clients to move
 *   (`Connection: close`), or they fail.
 * - No retries: a connection the endpoint refuses or resets is the client's connection failing, as
 *   behind a Service.
 * - No endpoints: the connection is closed at once (kube-proxy would reject it).
 */
import net from "node:net";

export interface EndpointsProxy {
  /** Where clients connect (http://127.0.0.1:port). */
  url: string;
  /** The endpoints new connections go to now (base URLs), in round-robin order. */
  readonly endpoints: readonly string[];
  /** Connections sent to each endpoint so far (also after its removal). */
  readonly forwarded: ReadonlyMap<string, number>;
  add(url: string): void;
  remove(url: string): void;
  close(): Promise<void>;
}

export interface EndpointsProxyOptions {
  /** The port to listen on (default: a free one); it fails when the port is taken. */
  port?: number;
  /** The interface to listen on (default 127.0.0.1). */
  host?: string;
}

export async function startEndpointsProxy(
  initial: string[] = [],
  opts: EndpointsProxyOptions = {},
): Promise<EndpointsProxy> {
  let endpoints = [...initial];
  const forwarded = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  let next = 0;

  const server = net.createServer((client) => {
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    if (endpoints.length === 0) {
      client.destroy();
      return;
    }
    const endpoint = endpoints[next++ % endpoints.length]!;
    forwarded.set(endpoint, (forwarded.get(endpoint) ?? 0) + 1);
    const target = new URL(endpoint);
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.once("close", () => sockets.delete(upstream));
    // Either side's end or failure ends the other: a reset upstream is a reset for the client.
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.resetAndDestroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.end());
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as net.AddressInfo;

  return {
    url: `http://${host}:${port}`,
    get endpoints() {
      return [...endpoints];
    },
    forwarded,
    add(url) {
      if (!endpoints.includes(url)) endpoints.push(url);
    },
    remove(url) {
      endpoints = endpoints.filter((e) => e !== url);
    },
    async close() {
      endpoints = [];
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
