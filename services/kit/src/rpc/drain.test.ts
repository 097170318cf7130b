/**
 * A draining service and the kit's client: running calls finish, a call sent meanwhile reaches the
 * successor on the same address (never run twice), and a call whose connection breaks after it
 * went out is sent again only when its method is idempotent in the proto.
 */
import http2 from "node:http2";
import net from "node:net";
import { Code, ConnectError, type ConnectRouter, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createConnectTransport } from "@connectrpc/connect-node";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { NotificationsService } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import { afterEach, describe, expect, it } from "vitest";
import { checkDeadline } from "../deadline.ts";
import { testCredentials, testRuntime } from "../testing/rpc.ts";
import { bearerInterceptor } from "./auth.ts";
import { callOptions, createRpcClient, createStreamingRpcClient } from "./client.ts";
import { recordUnaryRoutes, unaryFastPath } from "./connect-h2-server.ts";
import { buildRpcServer, type RpcServer, rpcPort } from "./server.ts";

const ctx = {
  tenant: "t1",
  principal: { userId: "u", username: "ada", roles: [], permissions: [] },
  client: { api: "REST", rawInfo: "test" },
};
const rt = testRuntime("drain-test");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A catalog named `name` whose CreateCategory (a write) and GetCategory (a read) sleep as many ms
 * as the request's body.tenantCategoryId / id say, answer with `name`, and count the calls they ran.
 */
function catalog(name: string) {
  const ran = { create: 0, get: 0 };
  const routes = (router: ConnectRouter) =>
    router.service(CatalogService, {
      async createCategory(req) {
        ran.create++;
        await sleep(Number(req.body?.tenantCategoryId));
        checkDeadline(); // as a transaction does before its commit: refused once the call is aborted
        return { category: { id: name } };
      },
      async getCategory(req) {
        ran.get++;
        await sleep(Number(req.id));
        return { category: { id: name } };
      },
    });
  return { ran, routes };
}

const servers: RpcServer[] = [];
const raw: http2.Http2Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(raw.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(routes: (router: ConnectRouter) => void, port = 0): Promise<RpcServer> {
  const server = await buildRpcServer(rt, routes);
  await server.listen({ host: "127.0.0.1", port });
  servers.push(server);
  return server;
}

describe("a draining service and the kit's client", () => {
  it("finishes the running calls; a write sent during the drain and the gap reaches the successor once", async () => {
    const first = catalog("first");
    const old = await serve(first.routes);
    const port = rpcPort(old);
    const client = createRpcClient(CatalogService, `http://127.0.0.1:${port}`, testCredentials);
    // Open the session, then start a slow write and a slow read on it.
    await client.getCategory({ id: "0" }, callOptions(ctx));
    const running = [
      client.createCategory({ body: { tenantCategoryId: "400" } }, callOptions(ctx)),
      client.getCategory({ id: "400" }, callOptions(ctx)),
    ];
    await sleep(50);
    const drained = old.close();
    // Sent while the old process drains (GOAWAY; its listener closed) and then stops: nothing
    // listens until the successor starts.
    const during = client.createCategory({ body: { tenantCategoryId: "0" } }, callOptions(ctx));
    const [write, read] = await Promise.all(running);
    expect([write.category?.id, read.category?.id]).toEqual(["first", "first"]);
    await drained;
    await sleep(500);
    const second = catalog("second");
    await serve(second.routes, port);
    expect((await during).category?.id).toBe("second");
    expect(first.ran).toEqual({ create: 1, get: 2 });
    expect(second.ran).toEqual({ create: 1, get: 0 });
  });

  it("ends streaming calls once the unary calls are done, which run to the end on either path", async () => {
    let streamEnded = false;
    const server = await serve((router) => {
      catalog("streams").routes(router);
      router.service(NotificationsService, {
        async *streamNotifications(_req, hctx) {
          yield { documentJson: new Uint8Array() };
          await new Promise((resolve) => hctx.signal.addEventListener("abort", resolve));
          streamEnded = true;
        },
      });
    });
    const url = `http://127.0.0.1:${rpcPort(server)}`;
    const stream = createStreamingRpcClient(NotificationsService, url, testCredentials).streamNotifications(
      {},
      callOptions(ctx),
    );
    const received = (async () => {
      let n = 0;
      for await (const _ of stream) n++;
      return n;
    })();
    // A unary call served by connect-node's handler (Connect JSON), whose signal the drain must spare.
    const json = createClient(
      CatalogService,
      createConnectTransport({
        baseUrl: url,
        httpVersion: "2",
        useBinaryFormat: false,
        interceptors: [bearerInterceptor(testCredentials)],
      }),
    );
    await sleep(100);
    const running = json.createCategory({ body: { tenantCategoryId: "400" } }, callOptions(ctx));
    await sleep(50);
    const started = Date.now();
    const drained = server.close();
    expect((await running).category?.id).toBe("streams");
    await drained;
    expect(Date.now() - started).toBeLessThan(2000); // not the 10 s grace
    expect(await received).toBe(1);
    expect(streamEnded).toBe(true);
  });

  it("a call nobody receives within reconnectWindowMs fails Unavailable", async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((r) => probe.close(r));
    const client = createRpcClient(CatalogService, `http://127.0.0.1:${port}`, testCredentials, {
      reconnectWindowMs: 300,
    });
    const started = Date.now();
    const err = ConnectError.from(
      await client.createCategory({ body: { tenantCategoryId: "0" } }, callOptions(ctx)).catch((e) => e),
    );
    expect(err.code).toBe(Code.Unavailable);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150); // no retry planned beyond the window
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a connection that breaks after the request went out: a read is sent again once, a write never", async () => {
    const { ran, routes } = catalog("flaky");
    const recorded = recordUnaryRoutes(routes);
    // (connect-node's handler, which registers the routes, serves what the fast path does not.)
    const handle = unaryFastPath(
      { unary: recorded.unary, interceptors: [], bodyLimit: 1024 },
      connectNodeAdapter({ routes: recorded.routes }),
    );
    /** How many of the next requests the server "crashes" on (the whole connection goes). */
    let breakNext = 0;
    const arrived: string[] = [];
    const server = http2.createServer((req, res) => {
      arrived.push(req.url);
      if (breakNext > 0) {
        breakNext--;
        req.stream.session?.socket.destroy(); // as a crashed process: no GOAWAY, no response
        return;
      }
      handle(req, res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    raw.push(server);
    const client = createRpcClient(
      CatalogService,
      `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
      testCredentials,
    );
    const get = "/fop.catalog.v1.CatalogService/GetCategory";
    const create = "/fop.catalog.v1.CatalogService/CreateCategory";

    breakNext = 1;
    expect((await client.getCategory({ id: "0" })).category?.id).toBe("flaky");
    expect(arrived).toEqual([get, get]);

    arrived.length = 0;
    breakNext = 2;
    const twice = ConnectError.from(await client.getCategory({ id: "0" }).catch((e) => e));
    expect(twice.code).toBe(Code.Unavailable);
    expect(arrived).toEqual([get, get]);

    arrived.length = 0;
    breakNext = 1;
    const write = ConnectError.from(
      await client.createCategory({ body: { tenantCategoryId: "0" } }).catch((e) => e),
    );
    expect(write.code).toBe(Code.Unavailable);
    expect(arrived).toEqual([create]);
    expect(ran.create).toBe(0);
  });

  it("the protos mark reads idempotent, writes not", () => {
    const level = (name: string) => CatalogService.methods.find((m) => m.name === name)!.idempotency;
    expect(["GetCategory", "SearchCategories", "ListCategories", "LookupId"].map(level)).toEqual([
      1, 1, 1, 1,
    ]);
    expect(["CreateCategory", "ReplaceCategory", "DeleteCategory"].map(level)).toEqual([0, 0, 0]);
  });
});
