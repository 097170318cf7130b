/**
 * A client program as an API user writes one: its types generated from the gateway's OpenAPI
 * document by openapi-typescript (`api.ts`, beside this file only where
 * system/api/openapi-client.test.ts generates it, so the test workspace's typecheck leaves this folder
 * out), its requests sent by openapi-fetch. The test typechecks it against the types generated from
 * the served /api/openapi.json (`tsc --noEmit`), then runs `pickJobRoundTrip` against the system.
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./api.ts";

type PickJobForCreation = components["schemas"]["PickJobForCreation"];

/** The answer's status and body; throws with the error body when it is not a 2xx. */
function ok<T>(
  what: string,
  res: { data?: T; error?: unknown; response: Response },
): { status: number; body: T } {
  if (res.data === undefined) throw new Error(`${what}: ${res.response.status} ${JSON.stringify(res.error)}`);
  return { status: res.response.status, body: res.data };
}

/** A facility at `address`, then a pick job in it: created, STARTed, read back and found by search. */
export async function pickJobRoundTrip(
  baseUrl: string,
  token: string,
  address: NonNullable<components["schemas"]["FacilityForCreation"]["address"]>,
) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });
  const facility = ok(
    "POST /api/facilities",
    await client.POST("/api/facilities", { body: { name: "Client Store", address } }),
  );
  const job: PickJobForCreation = {
    facilityRef: facility.body.id,
    orderDate: "2020-02-03T08:45:50.525Z",
    tenantOrderId: "R456728546",
    pickLineItems: [
      { article: { tenantArticleId: "4711", title: "Cologne Water" }, quantity: 4 },
      { article: { tenantArticleId: "0815", title: "Soap" }, quantity: 10 },
    ],
  };
  const created = ok("POST /api/pickjobs", await client.POST("/api/pickjobs", { body: job }));
  const pickJobId = created.body.id;
  const started = ok(
    "START",
    await client.POST("/api/pickjobs/{pickJobId}/actions", {
      params: { path: { pickJobId } },
      body: { name: "START", version: created.body.version },
    }),
  );
  const read = ok(
    "GET /api/pickjobs/{pickJobId}",
    await client.GET("/api/pickjobs/{pickJobId}", { params: { path: { pickJobId } } }),
  );
  const found = ok(
    "POST /api/pickjobs/search",
    await client.POST("/api/pickjobs/search", {
      body: { query: { facilityRef: { eq: facility.body.id } }, options: { withTotal: true } },
    }),
  );
  return { facility, created, started, read, found };
}

/** Never run: what the document does not allow does not compile (the types are not `any`). */
export function notAllowed(client: Client<paths>): void {
  void client.POST("/api/pickjobs/{pickJobId}/actions", {
    params: { path: { pickJobId: "x" } },
    // @ts-expect-error: there is no action STRAT
    body: { name: "STRAT", version: 1 },
  });
  // @ts-expect-error: a pick job has line items
  const noLines: PickJobForCreation = { facilityRef: "f", orderDate: "2020-02-03T08:45:50.525Z" };
  // @ts-expect-error: a pick job's version is a number
  const version: components["schemas"]["PickJob"]["version"] = "1";
  void [noLines, version];
}
