import http2 from "node:http2";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { create, type JsonObject, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import {
  connectNodeAdapter,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { CatalogService, GetCategoryRequestSchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextFromHeaders } from "../context.ts";
import { AppError } from "../errors.ts";
import { testCredentials, testRuntime } from "../testing/rpc.ts";
import { bearerInterceptor } from "./auth.ts";
import { callOptions, createRpcClient } from "./client.ts";
import { recordUnaryRoutes, unaryFastPath } from "./connect-h2-server.ts";
import { CallHeaders } from "./connect-h2-wire.ts";
import { buildRpcServer, type RpcServer, requestContext, rpcPort } from "./server.ts";

const ctx = {
  tenant: "t1",
  principal: { userId: "u", username: "ada", roles: [], permissions: [] },
  client: { api: "REST", rawInfo: "test" },
};
const rt = testRuntime("h2-test");

/** Every call but health checks and reflection carries a bearer token (auth.ts). */
const auth = [bearerInterceptor(testCredentials)];

let server: RpcServer;
let url: string;
/** How each call arrived: "fast" (the lean path) or via connect-node's handler. */
const seen: string[] = [];
let aborted = 0;

beforeAll(async () => {
  server = await buildRpcServer(rt, (router) =>
    router.service(CatalogService, {
      async getCategory(req, hctx) {
        const c = requestContext(hctx);
        seen.push(hctx.protocolName);
        return {
          category: {
            id: req.id,
            version: 3n,
            documentJson: new TextEncoder().encode(
              JSON.stringify({ id: req.id, tenant: c.tenant, user: c.principal.username }),
            ),
          },
        };
      },
      async lookupId(req, hctx) {
        // Sleeps as long as asked (value = ms), noticing a caller that gives up.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Number(req.value));
          hctx.signal.addEventListener("abort", () => {
            aborted++;
            clearTimeout(t);
            resolve();
          });
        });
        return { id: "late" };
      },
      async createCategory() {
        return {};
      },
      async listCategories() {
        throw new AppError("not_found", {
          code: "NOPE",
          description: "nothing here",
          requestVersion: 1,
          version: 2,
        });
      },
    }),
  );
  await server.listen({ host: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${rpcPort(server)}`;
});
afterAll(() => server?.close());

const clients: [string, Transport | "kit"][] = [];

describe("CallHeaders (the fast path's Headers)", () => {
  it("is case-insensitive, joins appended values, skips HTTP/2 pseudo-headers, and converts back", () => {
    const h = new CallHeaders({ ":status": "200", "Content-Type": "application/proto", "x-a": ["1", "2"] });
    expect(h.get("content-type")).toBe("application/proto");
    expect(h.has(":status")).toBe(false);
    expect(h.get("X-A")).toBe("1, 2");
    h.set("X-B", "b");
    h.append("x-b", "c");
    h.delete("content-type");
    expect([...h]).toEqual([
      ["x-a", "1, 2"],
      ["x-b", "b, c"],
    ]);
    expect(h.get("missing")).toBeNull();
    // Connect's own code copies it into a Fetch API Headers.
    expect(new Headers(h as unknown as Headers).get("x-b")).toBe("b, c");
  });
});

/** A port nothing listens on: the kernel's pick for a listener that is closed again at once. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("unary Connect calls over h2c", () => {
  beforeAll(() => {
    clients.push(
      ["the kit's lean client", "kit"],
      [
        "connect-node, Connect binary",
        createConnectTransport({ baseUrl: url, httpVersion: "2", useBinaryFormat: true, interceptors: auth }),
      ],
      [
        "connect-node, Connect JSON",
        createConnectTransport({
          baseUrl: url,
          httpVersion: "2",
          useBinaryFormat: false,
          interceptors: auth,
        }),
      ],
      ["connect-node, gRPC", createGrpcTransport({ baseUrl: url, interceptors: auth })],
      [
        "connect-node, gRPC-web",
        createGrpcWebTransport({ baseUrl: url, httpVersion: "2", interceptors: auth }),
      ],
    );
  });
  const client = (t: Transport | "kit") =>
    t === "kit" ? createRpcClient(CatalogService, url, testCredentials) : createClient(CatalogService, t);

  it("refuses a request it cannot decode (a body nested past the decoder's limit) as the caller's fault, in every protocol", async () => {
    let deep: JsonObject = { leaf: 1 };
    for (let i = 0; i < 120; i++) deep = { a: deep };
    // gRPC-web (a browser's protocol; no direct caller's) carries its status in the body: not rewritten.
    for (const [name, t] of clients.filter(([name]) => !name.includes("gRPC-web"))) {
      const err = ConnectError.from(
        await client(t)
          .createCategory({ body: deep }, callOptions(ctx))
          .then(
            () => expect.unreachable(name),
            (e: unknown) => e,
          ),
      );
      expect(err.code, `${name}: ${err.message}`).toBe(Code.InvalidArgument);
      // Binary: the whole request ("/"); JSON reads as far as the place that is too deep (/body/a/...).
      expect(err.findDetails(ErrorDetailSchema)[0], name).toMatchObject({
        field: expect.stringMatching(/^\//),
      });
    }
  });

  it("answers every protocol, with the caller's context, the fast path taking Connect binary", async () => {
    for (const [name, t] of clients) {
      seen.length = 0;
      const res = await client(t).getCategory({ id: "c-1" }, callOptions(ctx));
      expect(res.category?.version, name).toBe(3n);
      expect(JSON.parse(new TextDecoder().decode(res.category!.documentJson)), name).toEqual({
        id: "c-1",
        tenant: "t1",
        user: "ada",
      });
      const protocol = name.includes("gRPC-web") ? "grpc-web" : name.includes("gRPC") ? "grpc" : "connect";
      expect(seen, name).toEqual([protocol]);
    }
  });

  it("takes the fast path for unary Connect calls (binary and JSON); the rest falls back", async () => {
    const recorded = recordUnaryRoutes((router) =>
      router.service(CatalogService, {
        async getCategory(req) {
          return { category: { id: req.id } };
        },
      }),
    );
    let fellBack = 0;
    const adapter = connectNodeAdapter({ routes: recorded.routes });
    const h2 = http2.createServer(
      unaryFastPath({ unary: recorded.unary, interceptors: [], bodyLimit: 1024 }, (req, res) => {
        fellBack++;
        adapter(req, res);
      }),
    );
    await new Promise<void>((r) => h2.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(h2.address() as { port: number }).port}`;
    try {
      expect(
        (await createRpcClient(CatalogService, base, testCredentials).getCategory({ id: "a" })).category?.id,
      ).toBe("a");
      const binary = createConnectTransport({ baseUrl: base, httpVersion: "2", useBinaryFormat: true });
      expect((await createClient(CatalogService, binary).getCategory({ id: "b" })).category?.id).toBe("b");
      // Connect JSON too (a direct caller's), read through the REST JSON door (json-request.ts).
      const json = createConnectTransport({ baseUrl: base, httpVersion: "2", useBinaryFormat: false });
      expect((await createClient(CatalogService, json).getCategory({ id: "j" })).category?.id).toBe("j");
      expect(fellBack).toBe(0);
      const others: Transport[] = [
        createGrpcTransport({ baseUrl: base }),
        createGrpcWebTransport({ baseUrl: base, httpVersion: "2" }),
      ];
      for (const t of others)
        expect((await createClient(CatalogService, t).getCategory({ id: "c" })).category?.id).toBe("c");
      expect(fellBack).toBe(others.length);
      // A compressed Connect binary call: connect-node's handler inflates it.
      const session = http2.connect(base);
      const body = gzipSync(
        toBinary(GetCategoryRequestSchema, create(GetCategoryRequestSchema, { id: "z" })),
      );
      const stream = session.request({
        ":method": "POST",
        ":path": "/fop.catalog.v1.CatalogService/GetCategory",
        "content-type": "application/proto",
        "content-encoding": "gzip",
        "connect-protocol-version": "1",
      });
      stream.end(body);
      const status = await new Promise((r) => stream.on("response", (h) => r(h[":status"])));
      stream.resume();
      await new Promise((r) => stream.on("close", r));
      session.close();
      expect(status).toBe(200);
      expect(fellBack).toBe(others.length + 1);
      // A body over the limit: the fast path refuses it (ResourceExhausted), it does not buffer it.
      const big = ConnectError.from(
        await createRpcClient(CatalogService, base, testCredentials)
          .getCategory({ id: "x".repeat(5000) })
          .catch((e) => e),
      );
      expect(big.code).toBe(Code.ResourceExhausted);
    } finally {
      await new Promise((r) => h2.close(r));
    }
  });

  it("sends errors with our detail, whichever protocol", async () => {
    for (const [name, t] of clients) {
      const err = ConnectError.from(
        await client(t)
          .listCategories({}, callOptions(ctx))
          .catch((e) => e),
      );
      expect(err.code, name).toBe(Code.NotFound);
      expect(err.findDetails(ErrorDetailSchema)[0], name).toMatchObject({
        code: "NOPE",
        requestVersion: 1n,
        version: 2n,
      });
    }
  });

  it("a call without a tenant is refused by the interceptors on the fast path too", async () => {
    const err = ConnectError.from(
      await createRpcClient(CatalogService, url, testCredentials)
        .getCategory({ id: "x" })
        .catch((e) => e),
    );
    expect(err.code).toBe(Code.Unauthenticated);
  });

  it("the lean client gives up at its deadline (DeadlineExceeded), and the server's handler sees the cancel", async () => {
    const lean = createRpcClient(CatalogService, url, testCredentials, { timeoutMs: 100 });
    const before = aborted;
    const started = Date.now();
    const err = ConnectError.from(
      await lean.lookupId({ entity: "x", field: "y", value: "2000" }, callOptions(ctx)).catch((e) => e),
    );
    expect(err.code).toBe(Code.DeadlineExceeded);
    expect(Date.now() - started).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 100));
    expect(aborted).toBeGreaterThan(before);
  });

  it("a call signal aborts it (Canceled)", async () => {
    const lean = createRpcClient(CatalogService, url, testCredentials);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const err = ConnectError.from(
      await lean
        .lookupId({ entity: "x", field: "y", value: "2000" }, callOptions(ctx, { signal: controller.signal }))
        .catch((e) => e),
    );
    expect(err.code).toBe(Code.Canceled);
  });

  it("many concurrent calls share one session", async () => {
    const lean = createRpcClient(CatalogService, url, testCredentials);
    const ids = Array.from({ length: 200 }, (_, i) => `c-${i}`);
    const res = await Promise.all(ids.map((id) => lean.getCategory({ id }, callOptions(ctx))));
    expect(res.map((r) => r.category?.id)).toEqual(ids);
  });

  it("an unreachable server is Unavailable; a later call after it comes up succeeds", async () => {
    const port = await freePort(); // nothing listens there now
    // (Without waiting for a listener: drain.test.ts shows the wait.)
    const lean = createRpcClient(CatalogService, `http://127.0.0.1:${port}`, testCredentials, {
      reconnectWindowMs: 0,
    });
    const err = ConnectError.from(await lean.getCategory({ id: "x" }, callOptions(ctx)).catch((e) => e));
    expect(err.code).toBe(Code.Unavailable);
    const other = await buildRpcServer(rt, (router) =>
      router.service(CatalogService, {
        async getCategory(req) {
          return { category: { id: req.id } };
        },
      }),
    );
    try {
      await other.listen({ host: "127.0.0.1", port });
      expect((await lean.getCategory({ id: "back" }, callOptions(ctx))).category?.id).toBe("back");
    } finally {
      await other.close();
    }
  });

  it("a service writes no log line per call at info, one at debug (the gateway writes the access line)", async () => {
    for (const [level, expected] of [
      ["info", 0],
      ["debug", 1],
    ] as const) {
      const lines: string[] = [];
      const logger = pino({ level }, { write: (line: string) => void lines.push(line) });
      const logged = await buildRpcServer({ ...rt, logger }, (router) =>
        router.service(CatalogService, {
          async getCategory(req) {
            return { category: { id: req.id } };
          },
        }),
      );
      try {
        await logged.listen({ host: "127.0.0.1", port: 0 });
        const client = createRpcClient(
          CatalogService,
          `http://127.0.0.1:${rpcPort(logged)}`,
          testCredentials,
        );
        await client.getCategory({ id: "logged" }, callOptions(ctx));
        const rpcLines = lines.filter((l) => JSON.parse(l).msg === "rpc");
        expect(rpcLines, level).toHaveLength(expected);
      } finally {
        await logged.close();
      }
    }
  });

  it("reads the context the same way on both paths", () => {
    // (contextFromHeaders is what the context interceptor uses on either path.)
    const h = new Headers({ "x-fop-tenant": "t1", "x-fop-username": "ada" });
    expect(contextFromHeaders(h, "").tenant).toBe("t1");
  });
});

describe("benchmarks only (FOP_ABLATE): calls over HTTP/1.1 and in the Connect JSON codec", () => {
  let bench: RpcServer;
  let base: string;
  /** How each call arrived: "fast" (the lean path's headers) or "full" (connect-node's handler). */
  const paths: string[] = [];

  beforeAll(async () => {
    bench = await buildRpcServer(
      rt,
      (router) =>
        router.service(CatalogService, {
          async getCategory(req, hctx) {
            paths.push(hctx.requestHeader instanceof CallHeaders ? "fast" : "full");
            return {
              category: {
                id: req.id,
                version: 7n,
                documentJson: new TextEncoder().encode(`{"tenant":"${requestContext(hctx).tenant}"}`),
              },
            };
          },
          async lookupId(req) {
            await new Promise((r) => setTimeout(r, Number(req.value)));
            return { id: "late" };
          },
          async listCategories() {
            throw new AppError("not_found", { code: "NOPE", description: "nothing here" });
          },
        }),
      { http1: true },
    );
    await bench.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${rpcPort(bench)}`;
  });
  afterAll(() => bench?.close());

  const wires = [
    { httpVersion: "2", codec: "proto" },
    { httpVersion: "2", codec: "json" },
    { httpVersion: "1.1", codec: "proto" },
    { httpVersion: "1.1", codec: "json" },
  ] as const;

  it("the kit's client makes the same calls on every wire, answered by the fast path", async () => {
    for (const wire of wires) {
      const name = `HTTP/${wire.httpVersion} ${wire.codec}`;
      const lean = createRpcClient(CatalogService, base, testCredentials, wire);
      paths.length = 0;
      const res = await Promise.all(["a", "b", "c"].map((id) => lean.getCategory({ id }, callOptions(ctx))));
      expect(
        res.map((r) => [r.category?.id, r.category?.version]),
        name,
      ).toEqual([
        ["a", 7n],
        ["b", 7n],
        ["c", 7n],
      ]);
      expect(new TextDecoder().decode(res[0]!.category!.documentJson), name).toBe('{"tenant":"t1"}');
      expect(paths, name).toEqual(["fast", "fast", "fast"]);
      const err = ConnectError.from(await lean.listCategories({}, callOptions(ctx)).catch((e) => e));
      expect(err.code, name).toBe(Code.NotFound);
      expect(err.findDetails(ErrorDetailSchema)[0]?.code, name).toBe("NOPE");
      // At its deadline the call ends: the client gives up (DeadlineExceeded) or the service, whose
      // clock started the same moment, says so first (Unavailable, deadline.ts).
      const slow = createRpcClient(CatalogService, base, testCredentials, { ...wire, timeoutMs: 50 });
      const started = Date.now();
      const late = ConnectError.from(
        await slow.lookupId({ entity: "x", field: "y", value: "1000" }, callOptions(ctx)).catch((e) => e),
      );
      expect([Code.DeadlineExceeded, Code.Unavailable], name).toContain(late.code);
      expect(Date.now() - started, name).toBeLessThan(500);
    }
  });

  it("the port still answers HTTP/2 callers of every protocol, and HTTP/1.1 ones of connect-node", async () => {
    const others: [string, Transport][] = [
      ["gRPC", createGrpcTransport({ baseUrl: base, interceptors: auth })],
      [
        "Connect JSON, connect-node HTTP/1.1",
        createConnectTransport({ baseUrl: base, httpVersion: "1.1", interceptors: auth }),
      ],
      [
        "gRPC-web, connect-node HTTP/1.1",
        createGrpcWebTransport({ baseUrl: base, httpVersion: "1.1", interceptors: auth }),
      ],
    ];
    for (const [name, t] of others) {
      const c = createClient(CatalogService, t);
      expect((await c.getCategory({ id: "o" }, callOptions(ctx))).category?.id, name).toBe("o");
    }
  });

  it("without the switches a server answers Connect JSON on the fast path and refuses HTTP/1.1", async () => {
    const plain = await buildRpcServer(rt, (router) =>
      router.service(CatalogService, {
        async getCategory(req, hctx) {
          paths.push(hctx.requestHeader instanceof CallHeaders ? "fast" : "full");
          return { category: { id: req.id } };
        },
      }),
    );
    await plain.listen({ host: "127.0.0.1", port: 0 });
    const at = `http://127.0.0.1:${rpcPort(plain)}`;
    try {
      paths.length = 0;
      const json = createRpcClient(CatalogService, at, testCredentials, { codec: "json" });
      expect((await json.getCategory({ id: "j" }, callOptions(ctx))).category?.id).toBe("j");
      expect(paths).toEqual(["fast"]);
      const h1 = createRpcClient(CatalogService, at, testCredentials, {
        httpVersion: "1.1",
        reconnectWindowMs: 0,
      });
      const err = ConnectError.from(await h1.getCategory({ id: "x" }, callOptions(ctx)).catch((e) => e));
      expect(err.code).toBe(Code.Unavailable);
    } finally {
      await plain.close();
    }
  });
});
