/**
 * A direct RPC caller (an internal team with a caller token, as the README's "Calling the services
 * directly" shows) meets the input rules a REST client meets (issue 31): a write's body is read with
 * the REST schema of the same write, so an unknown field, a malformed date or an out-of-range
 * number is refused with INVALID_ARGUMENT naming the field, over Connect JSON and gRPC binary alike,
 * and nothing is stored. Services whose writes are not wired yet are not listed here.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import type { RequestContext } from "@fop/kit/context";
import { bearerInterceptor } from "@fop/kit/rpc/auth";
import { callOptions } from "@fop/kit/rpc/client";
import { testCallerToken } from "@fop/kit/testing/rpc";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { PickingService } from "@fop/proto/fop/picking/v1/picking_pb.js";
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
