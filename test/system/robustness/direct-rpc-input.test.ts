/**
 * A direct RPC caller (an internal team with a caller token, as the README's "Calling the services
 * directly" shows) meets the input rules a REST client meets (issue 31): a write's body is read with
 * the REST schema of the same write, so an unknown field, a malformed date or an out-of-range
 * number is refused with INVALID_ARGUMENT naming the field, over Connect JSON and gRPC binary alike,
 * and nothing is stored. Every service: one create per service is sent both ways (REST and
 * direct) with the same bad bodies, and the direct refusal must be REST's (same words) with the
 * field named.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import type { RequestContext } from "@fop/kit/context";
import { bearerInterceptor } from "@fop/kit/rpc/auth";
import { callOptions } from "@fop/kit/rpc/client";
import { testCallerToken } from "@fop/kit/testing/rpc";
import { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import { NotificationsService } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import { PickingService } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { ReturnsService } from "@fop/proto/fop/returns/v1/returns_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type System, startSystem } from "../../support/system.ts";

const TENANT = "direct-input";
const ctx: Omit<RequestContext, "traceId"> = {
  tenant: TENANT,
  principal: { userId: "u-1", username: "team", roles: ["ADMIN"], permissions: [] },
  client: { api: "RPC", rawInfo: "direct-rpc-input test" },
};

let sys: System;
let api: ReturnType<System["as"]>;
let token: string;
let facilityId: string;

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token(TENANT));
  token = await testCallerToken("internal-team", [TENANT]);
  const facility = await api("POST", "/api/facilities", { name: "Direct", address: facilityAddress });
  expect(facility.status, facility.text).toBe(201);
  facilityId = facility.body.id;
});
afterAll(async () => {
  await sys?.close();
});

const WIRES = {
  "Connect JSON": (baseUrl: string) =>
    createConnectTransport({
      baseUrl,
      httpVersion: "2",
      interceptors: [bearerInterceptor(async () => token)],
    }),
  "gRPC binary": (baseUrl: string) =>
    createGrpcTransport({ baseUrl, interceptors: [bearerInterceptor(async () => token)] }),
} as const;

/** The refusal of a call that must fail: its code and the ErrorDetail's code and field. */
async function refusal(call: Promise<unknown>) {
  const err = await call.then(
    () => expect.unreachable("the call was accepted"),
    (e: unknown) => ConnectError.from(e),
  );
  const detail = err.findDetails(ErrorDetailSchema)[0];
  return { code: err.code, detailCode: detail?.code, field: detail?.field };
}

describe.each(Object.entries(WIRES))("picking over %s", (_wire, transportOf) => {
  const picking = () => createClient(PickingService, transportOf(sys.services.picking.rpcUrl));
  const create = (body: Record<string, unknown>) =>
    picking().createPickJob({ body: body as JsonObject }, callOptions(ctx));
  const stored = async () =>
    (await api("GET", `/api/pickjobs?facilityId=${facilityId}`)).body.total as number;

  it("CreatePickJob refuses an unknown field, a bad date and a negative quantity, naming each, and stores nothing", async () => {
    const before = await stored();
    const lines = pickJobBody(facilityId).pickLineItems;
    for (const [body, field] of [
      [pickJobBody(facilityId, { evil: "<script>" }), "/evil"],
      [pickJobBody(facilityId, { orderDate: "not a date" }), "/orderDate"],
      [
        pickJobBody(facilityId, { pickLineItems: [{ ...lines[0], quantity: -3 }] }),
        "/pickLineItems/0/quantity",
      ],
      [pickJobBody(facilityId, { title: "a\u0000b" }), "/title"],
    ] as const) {
      expect(await refusal(create(body)), field).toEqual({
        code: Code.InvalidArgument,
        detailCode: expect.any(String),
        field,
      });
    }
    expect(await stored()).toBe(before);
    // The same call with a valid body is taken: the refusals above are the body's, not the door's.
    const { pickJob } = await create(pickJobBody(facilityId));
    expect(pickJob?.id).toBeTruthy();
    expect(await stored()).toBe(before + 1);
    const shown = await api("GET", `/api/pickjobs/${pickJob!.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty("evil");
  });

  it("what the service owns (a line's status and picked) cannot be sent, as REST refuses it", async () => {
    const before = await stored();
    const lines = pickJobBody(facilityId).pickLineItems;
    const body = pickJobBody(facilityId, { pickLineItems: [{ ...lines[0], status: "PICKED", picked: 4 }] });
    expect(await refusal(create(body))).toMatchObject({
      code: Code.InvalidArgument,
      field: "/pickLineItems/0/status",
    });
    const rest = await api("POST", "/api/pickjobs", body);
    expect(rest.status).toBe(400);
    expect(rest.body[0].description).toContain("status");
    expect(await stored()).toBe(before);
  });

  it("PickJobAction and PatchPickJob read their bodies with the REST schemas too", async () => {
    const { pickJob } = await create(pickJobBody(facilityId));
    expect(
      await refusal(
        picking().pickJobAction({ id: pickJob!.id, action: { name: "Nope", version: 1 } }, callOptions(ctx)),
      ),
    ).toMatchObject({ code: Code.InvalidArgument, field: "/name" });
    expect(
      await refusal(
        picking().patchPickJob(
          { id: pickJob!.id, version: 1n, actions: [{ action: "ModifyPickJob", status: "OPEN", evil: 1 }] },
          callOptions(ctx),
        ),
      ),
    ).toMatchObject({ code: Code.InvalidArgument, field: expect.stringMatching(/^\/actions\/0/) });
    expect((await api("GET", `/api/pickjobs/${pickJob!.id}`)).body.version).toBe(1);
  });
});

/** A create of each service: its REST route, its direct call, a body both take, and three bad ones. */
interface Door {
  rest: string;
  /** Where REST lists what was stored. */
  list: string;
  call: (transport: ReturnType<(typeof WIRES)["gRPC binary"]>, body: JsonObject) => Promise<unknown>;
  valid: () => Record<string, unknown>;
  /** Each bad body and the field its refusal names ("stripped": REST takes it, dropping what it does not know). */
  bad: [label: string, body: (valid: Record<string, unknown>) => Record<string, unknown>, field: string][];
}

const evil = (v: Record<string, unknown>) => ({ ...v, evil: "<script>" });
let carrierKeys = 0;
const DOORS: Record<string, Door> = {
  "catalog CreateCategory": {
    rest: "/api/categories",
    list: "/api/categories?size=500",
    call: (t, body) => createClient(CatalogService, t).createCategory({ body }, callOptions(ctx)),
    valid: () => ({ nameLocalized: { en_US: "Direct" } }),
    bad: [
      ["an unknown field", evil, "stripped"],
      [
        "a locale that is none",
        (v) => ({ ...v, nameLocalized: { "not a locale": "x" } }),
        "/nameLocalized/not a locale",
      ],
      [
        "a whole number past 2^53",
        (v) => ({ ...v, customAttributes: { n: 2 ** 60 } }),
        "/customAttributes/n",
      ],
    ],
  },
  "catalog CreateFacility": {
    rest: "/api/facilities",
    list: "/api/facilities?size=500",
    call: (t, body) => createClient(CatalogService, t).createFacility({ body }, callOptions(ctx)),
    valid: () => ({ name: "Direct store", address: facilityAddress }),
    bad: [
      ["an unknown field", evil, "stripped"],
      [
        "a country that is none",
        (v) => ({ ...v, address: { ...facilityAddress, country: "Germany" } }),
        "/address/country",
      ],
      ["an empty name", (v) => ({ ...v, name: "" }), "/name"],
    ],
  },
  "loadunits CreateStack": {
    rest: "/api/stacks",
    list: "/api/stacks?size=500",
    call: (t, body) => createClient(LoadUnitsService, t).createStack({ body }, callOptions(ctx)),
    valid: () => ({ facilityRefs: [facilityId], processRefs: [] }),
    bad: [
      ["an unknown field", evil, "stripped"],
      ["a list that is a string", (v) => ({ ...v, facilityRefs: facilityId }), "/facilityRefs"],
      ["a NUL in a ref", (v) => ({ ...v, processRefs: ["a\u0000b"] }), "/processRefs/0"],
    ],
  },
  "carriers CreateCarrier": {
    rest: "/api/carriers",
    list: "/api/carriers?size=500",
    call: (t, body) => createClient(CarriersService, t).createCarrier({ body }, callOptions(ctx)),
    valid: () => ({ key: `CUSTOM_DIRECT_${++carrierKeys}`, name: "Direct carrier" }),
    bad: [
      ["an unknown field", evil, "stripped"],
      ["a name that is a number", (v) => ({ ...v, name: 7 }), "/name"],
      // (A lone surrogate cannot be sent this way: the clients' encoders replace it before it leaves;
      // kit rpc/body.test.ts shows readBody refusing one.)
      [
        "a whole number past 2^53",
        (v) => ({ ...v, defaultParcelWeightInGram: 2 ** 60 }),
        "/defaultParcelWeightInGram",
      ],
    ],
  },
  "returns CreateItemReturnJob": {
    rest: "/api/itemreturnjobs",
    list: "/api/itemreturnjobs?size=500",
    call: (t, body) => createClient(ReturnsService, t).createItemReturnJob({ body }, callOptions(ctx)),
    valid: () => ({
      originFacilityRefs: [facilityId],
      status: "OPEN",
      consumerAddresses: [{ ...facilityAddress, firstName: "Ada", lastName: "Lovelace" }],
      returnableLineItems: [{ article: { tenantArticleId: "A-1", title: "Shirt" }, delivered: 2 }],
    }),
    bad: [
      ["an unknown field", evil, "stripped"],
      ["a status that is none", (v) => ({ ...v, status: "DONE" }), "/status"],
      [
        "a negative quantity",
        (v) => ({
          ...v,
          returnableLineItems: [{ article: { tenantArticleId: "A-1", title: "Shirt" }, delivered: -1 }],
        }),
        "/returnableLineItems/0/delivered",
      ],
    ],
  },
  "notifications CreateSubscription": {
    rest: "/api/subscriptions",
    list: "/api/subscriptions?size=500",
    call: (t, body) => createClient(NotificationsService, t).createSubscription({ body }, callOptions(ctx)),
    valid: () => ({
      name: "Direct hook",
      event: "PICK_JOB_CREATED",
      target: { type: "WEBHOOK", callbackUrl: "http://127.0.0.1:9/direct" },
    }),
    bad: [
      ["an unknown field", evil, "stripped"],
      ["an event that is none", (v) => ({ ...v, event: "NO_SUCH_EVENT" }), "/event"],
      [
        "a callback that is no URL",
        (v) => ({ ...v, target: { type: "WEBHOOK", callbackUrl: "not a url" } }),
        "/target/callbackUrl",
      ],
    ],
  },
};

/** How many entities REST lists for the door (its list's one array). */
async function storedCount(door: Door): Promise<number> {
  const res = await api("GET", door.list);
  expect(res.status, res.text).toBe(200);
  const list = Array.isArray(res.body) ? res.body : Object.values(res.body).find(Array.isArray);
  return (list as unknown[]).length;
}

describe.each(Object.entries(WIRES))(
  "every service over %s: REST's answer, the field named",
  (_wire, transportOf) => {
    it.each(Object.entries(DOORS))("%s", async (name, door) => {
      const transport = transportOf(sys.services[name.split(" ")[0] as keyof System["services"]].rpcUrl);
      const before = await storedCount(door);
      let taken = 0;
      for (const [label, bad, field] of door.bad) {
        const body = bad(door.valid());
        const rest = await api("POST", door.rest, body);
        // A body REST takes is sent directly as another entity's (a carrier key is unique).
        const direct = door.call(transport, (field === "stripped" ? bad(door.valid()) : body) as JsonObject);
        if (field === "stripped") {
          // An open body: REST takes it and drops the property it does not know; so does the service.
          expect(rest.status, `${label} through REST: ${rest.text}`).toBeLessThan(300);
          await direct;
          taken += 2;
          continue;
        }
        expect(rest.status, `${label} through REST: ${rest.text}`).toBe(400);
        const err = await direct.then(
          () => expect.unreachable(`${label}: taken directly`),
          (e: unknown) => ConnectError.from(e),
        );
        const detail = err.findDetails(ErrorDetailSchema)[0];
        expect(err.code, label).toBe(Code.InvalidArgument);
        expect(detail?.field, label).toBe(field);
        expect(detail?.description, label).toBe(rest.body[0].description);
      }
      // Nothing refused was stored; what was taken, without what REST does not know.
      expect(await storedCount(door)).toBe(before + taken);
      const stored = await api("GET", door.list);
      expect(stored.text).not.toContain("<script>");
    });
  },
);
