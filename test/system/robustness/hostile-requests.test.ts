/**
 * Issue 8: every finding of the outside probe, as a request a client (or an attacker) sends through
 * the gateway, and what it must get back: never a 5xx, never a silent change, always the platform's
 * error array. The numbers are the items.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { message, rawRequest } from "../../support/raw-http.ts";
import { type ApiResponse, type System, startSystem } from "../../support/system.ts";

let sys: System;
let token: string;
let api: ReturnType<System["as"]>;
let facilityId: string;

beforeAll(async () => {
  sys = await startSystem();
  token = await sys.token("hard");
  api = sys.as(token);
  facilityId = (
    await api("POST", "/api/facilities", { name: "Hard", tenantFacilityId: "HARD", address: facilityAddress })
  ).body.id;
});
afterAll(() => sys?.close());

/** A 4xx with the platform's error array and, when given, our code. */
function expectError(
  res: ApiResponse | { status: number; body?: unknown; json?: unknown },
  status: number,
  code?: string,
) {
  const body = ("json" in res ? res.json : res.body) as { summary?: string; code?: string }[];
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(Array.isArray(body), JSON.stringify(body)).toBe(true);
  expect(typeof body[0]?.summary).toBe("string");
  if (code) expect(body[0]?.code).toBe(code);
  return body[0]!;
}

const newCategory = async (id: string) =>
  (await api("POST", "/api/categories", { tenantCategoryId: id, nameLocalized: { en_US: id } })).body;

describe("1. an empty body is no body, on every method", () => {
  it("DELETE with Content-Type: application/json and Content-Length 0, none, or chunked deletes", async () => {
    const host = new URL(sys.baseUrl).host;
    const auth = { Host: host, Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const forms: [string, Record<string, string>][] = [
      ["Content-Length: 0", { "Content-Length": "0" }],
      ["no length", {}],
      ["chunked, empty", { "Transfer-Encoding": "chunked" }],
    ];
    for (const [name, extra] of forms) {
      const c = await newCategory(`DEL-${name.replace(/\W/g, "")}`);
      const body = extra["Transfer-Encoding"] ? "0\r\n\r\n" : undefined;
      const res = await rawRequest(
        sys.baseUrl,
        message("DELETE", `/api/categories/${c.id}`, { ...auth, ...extra }, body),
      );
      expect(res.status, `${name}: ${res.body}`).toBe(200);
      expect(res.json.id).toBe(c.id);
      expect((await api("GET", `/api/categories/${c.id}`)).status).toBe(404);
    }
  });

  it("any media type with an empty body is fine; GET with the JSON header too", async () => {
    const c = await newCategory("DEL-TEXT");
    const res = await api("DELETE", `/api/categories/${c.id}`, undefined, { "content-type": "text/plain" });
    expect(res.status).toBe(200);
    const get = await api("GET", "/api/categories", undefined, { "content-type": "application/json" });
    expect(get.status).toBe(200);
  });

  it("a route that needs a body says which, instead of MALFORMED_JSON", async () => {
    const res = await api("POST", "/api/categories", "", { "content-type": "application/json" });
    expectError(res, 400, "VALIDATION_FAILED");
  });
});

describe("2. the SDK's orderBy values", () => {
  const jobs: { id: string; targetTime: string; orderDate: string }[] = [];
  beforeAll(async () => {
    const times = ["2026-03-02T10:00:00.000Z", "2026-03-01T10:00:00.000Z", "2026-03-03T10:00:00.000Z"];
    const dates = ["2026-01-02T10:00:00.000Z", "2026-01-03T10:00:00.000Z", "2026-01-01T10:00:00.000Z"];
    for (let i = 0; i < 3; i++) {
      const body = pickJobBody(facilityId, {
        orderDate: dates[i],
        deliveryinformation: { channel: "COLLECT", targetTime: times[i] },
      });
      const res = await api("POST", "/api/pickjobs", body);
      expect(res.status).toBe(201);
      jobs.push({ id: res.body.id, targetTime: times[i]!, orderDate: dates[i]! });
    }
    // The first job is changed last (by a user): it leads LAST_MODIFIED(_BY_USER)_DESC.
    expect(
      (await api("POST", `/api/pickjobs/${jobs[0]!.id}/actions`, { name: "START", version: 1 })).status,
    ).toBe(200);
  });
  const list = async (query: string) => {
    const res = await api("GET", `/api/pickjobs?facilityRef=${facilityId}&${query}`);
    expect(res.status, res.text).toBe(200);
    return (res.body.pickjobs as { id: string }[])
      .map((j) => j.id)
      .filter((id) => jobs.some((j) => j.id === id));
  };
  const by = (k: "targetTime" | "orderDate", desc: boolean) =>
    [...jobs].sort((a, b) => (desc ? -1 : 1) * a[k].localeCompare(b[k])).map((j) => j.id);

  it("TARGET_TIME_ASC/DESC, ORDER_DATE_ASC/DESC order by those fields", async () => {
    expect(await list("orderBy=TARGET_TIME_DESC")).toEqual(by("targetTime", true));
    expect(await list("orderBy=TARGET_TIME_ASC")).toEqual(by("targetTime", false));
    expect(await list("orderBy=ORDER_DATE_DESC")).toEqual(by("orderDate", true));
    expect(await list("orderBy=ORDER_DATE_ASC")).toEqual(by("orderDate", false));
  });

  it("LAST_MODIFIED(_BY_USER)_ASC/DESC order by the last change", async () => {
    const created = jobs.map((j) => j.id);
    const changedLast = [created[1]!, created[2]!, created[0]!];
    expect(await list("orderBy=LAST_MODIFIED_ASC")).toEqual(changedLast);
    expect(await list("orderBy=LAST_MODIFIED_DESC")).toEqual([...changedLast].reverse());
    expect(await list("orderBy=LAST_MODIFIED_BY_USER_ASC")).toEqual(changedLast);
    expect(await list("orderBy=LAST_MODIFIED_BY_USER_DESC")).toEqual([...changedLast].reverse());
  });

  it("pages with startAfterId in a descending order; the older values still work", async () => {
    const all = by("targetTime", true);
    expect(await list(`orderBy=TARGET_TIME_DESC&startAfterId=${all[0]}`)).toEqual(all.slice(1));
    expect(await list("orderBy=-targetTime")).toEqual(all);
    expectError(await api("GET", "/api/pickjobs?orderBy=TARGET_TIME"), 400, "VALIDATION_FAILED");
    expectError(await api("GET", "/api/pickjobs?orderBy=constructor"), 400);
  });

  it("status as the SDK sends it (repeated), comma-joined, or both", async () => {
    const open = await list("status=OPEN&status=PAUSED");
    expect(open).toEqual(jobs.slice(1).map((j) => j.id));
    expect(await list("status=OPEN,PAUSED")).toEqual(open);
    expect(await list("status=IN_PROGRESS,PAUSED&status=OPEN")).toEqual(jobs.map((j) => j.id));
  });

  it("facilities order by NAME, CREATED and POSTAL_CODE_ASC", async () => {
    for (const orderBy of ["NAME", "CREATED", "POSTAL_CODE_ASC"]) {
      const res = await api("GET", `/api/facilities?orderBy=${orderBy}`);
      expect(res.status, orderBy).toBe(200);
    }
  });
});

describe("5. nesting is bounded before validation", () => {
  const nested = (depth: number, leaf: unknown, key: "and" | "or") => {
    let q: unknown = leaf;
    for (let i = 0; i < depth; i++) q = { [key]: [q] };
    return q;
  };
  it.each([21, 100, 1000])("search and/or %i deep -> 400", async (depth) => {
    for (const key of ["and", "or"] as const) {
      const res = await api("POST", "/api/categories/search", {
        query: nested(depth, { id: { eq: "x" } }, key),
      });
      const e = expectError(res, 400);
      expect(["QUERY_TOO_DEEP", "NESTING_TOO_DEEP"]).toContain(e.code);
    }
  });

  it("customAttributes 60 deep -> 400; 25 deep is stored and read back", async () => {
    const deep = (n: number): unknown => (n === 0 ? "leaf" : { a: deep(n - 1) });
    const too = await api("POST", "/api/categories", {
      nameLocalized: { en_US: "d" },
      customAttributes: deep(60),
    });
    expectError(too, 400, "NESTING_TOO_DEEP");
    const fine = await api("POST", "/api/categories", {
      nameLocalized: { en_US: "d" },
      customAttributes: deep(25),
    });
    expect(fine.status, fine.text).toBe(201);
    expect((await api("GET", `/api/categories/${fine.body.id}`)).body.customAttributes).toEqual(deep(25));
    const job = await api("POST", "/api/pickjobs", pickJobBody(facilityId, { customAttributes: deep(60) }));
    expectError(job, 400, "NESTING_TOO_DEEP");
  });

  it("a bracket bomb of 500,000 levels is refused", async () => {
    const bomb = `${"[".repeat(500_000)}${"]".repeat(500_000)}`;
    expectError(await api("POST", "/api/categories", bomb), 400, "NESTING_TOO_DEEP");
  });
});

describe("6. NUL in paths and query parameters", () => {
  it.each([
    "/api/categories/urn:fft:category:tenantCategoryId:a%00b",
    "/api/facilities/urn:fft:facility:tenantFacilityId:%00",
    "/api/audits?entityRef=a%00b",
    "/api/audits?trace=%00",
    "/api/pickjobs?searchTerm=x%00",
  ])("%s -> 400", async (path) => {
    expectError(await api("GET", path), 400, "INVALID_CHARACTER");
  });
});

describe("7. cursors are strict and signed", () => {
  const swapValue = (cursor: string, value: unknown) => {
    const [payload, mac] = cursor.split(".");
    const data = JSON.parse(Buffer.from(payload!, "base64url").toString()) as unknown[];
    data[2] = value;
    return `${Buffer.from(JSON.stringify(data)).toString("base64url")}.${mac}`;
  };
  it.each([
    "+275760-09-13T00:00:00.000Z",
    "-271821-04-20T00:00:00.000Z",
    "+010000-01-01T00:00:00Z",
    "2026-01-01T00:00:00-23:59",
    "2026-01-01T00:00:00.000Z",
  ])("a cursor whose date was changed to %s -> 400 INVALID_CURSOR", async (value) => {
    for (const id of ["CUR-A", "CUR-B"]) await newCategory(id);
    const page = await api("POST", "/api/categories/search", {
      query: {},
      sort: [{ created: "ASC" }],
      size: 1,
    });
    expect(page.status).toBe(200);
    const cursor = page.body.pageInfo.endCursor as string;
    const ok = await api("POST", "/api/categories/search", {
      query: {},
      sort: [{ created: "ASC" }],
      after: cursor,
    });
    expect(ok.status).toBe(200);
    const res = await api("POST", "/api/categories/search", {
      query: {},
      sort: [{ created: "ASC" }],
      after: swapValue(cursor, value),
    });
    expectError(res, 400, "INVALID_CURSOR");
  });

  it("a cursor of another service or made up -> 400", async () => {
    const jobs = await api("POST", "/api/pickjobs/search", {
      query: {},
      sort: [{ created: "ASC" }],
      size: 1,
    });
    const jobCursor = jobs.body.pageInfo.endCursor as string;
    expectError(
      await api("POST", "/api/categories/search", {
        query: {},
        sort: [{ created: "ASC" }],
        after: jobCursor,
      }),
      400,
      "INVALID_CURSOR",
    );
    const madeUp = Buffer.from(
      JSON.stringify(["created", "ASC", "2026-01-01T00:00:00Z", jobs.body.pickJobs[0].id]),
    );
    expectError(
      await api("POST", "/api/pickjobs/search", {
        query: {},
        sort: [{ created: "ASC" }],
        after: madeUp.toString("base64url"),
      }),
      400,
      "INVALID_CURSOR",
    );
  });
});

describe("8. durations and dates out of range", () => {
  it.each([
    ["P99999999Y", "P99999999Y"],
    ["-P99999999Y", "-P99999999Y"],
    ["200 digits of days", `P${"9".repeat(200)}D`],
  ])("after: %s -> 400", async (_name, d) => {
    const cat = await api("POST", "/api/categories/search", {
      query: { customAttributes: { tag: { after: d } } },
    });
    expectError(cat, 400, "INVALID_DURATION");
    const job = await api("POST", "/api/pickjobs/search", { query: { targetTime: { before: d } } });
    expectError(job, 400);
  });

  it("list dates out of range -> 400", async () => {
    for (const q of ["startOrderDate=%2B275760-09-13T00:00:00.000Z", "endOrderDate=0000-01-01T00:00:00Z"]) {
      expectError(await api("GET", `/api/pickjobs?${q}`), 400);
    }
  });
});

describe("9. numbers that cannot be kept exactly", () => {
  const createWith = (raw: string) =>
    api(
      "POST",
      "/api/pickjobs",
      JSON.stringify(pickJobBody(facilityId)).replace('"quantity":4', `"quantity":${raw}`),
    );
  it.each(["1e400", "9007199254740993", "-1e400"])("quantity %s -> 400", async (raw) => {
    expectError(await createWith(raw), 400);
  });

  it("customAttributes with non-finite or unsafe numbers -> 400; safe ones are kept exactly", async () => {
    for (const raw of ["1e400", "12345678901234567890", "-9007199254740992"]) {
      const res = await api(
        "POST",
        "/api/categories",
        `{"nameLocalized":{"en_US":"n"},"customAttributes":{"n":${raw}}}`,
      );
      expectError(res, 400, "INVALID_NUMBER");
    }
    const ok = await api(
      "POST",
      "/api/categories",
      '{"nameLocalized":{"en_US":"n"},"customAttributes":{"n":9007199254740991,"f":0.1}}',
    );
    expect(ok.status).toBe(201);
    expect(ok.body.customAttributes).toEqual({ n: 9007199254740991, f: 0.1 });
  });

  it("over-picking with 1e400 is refused, the job unchanged", async () => {
    const job = (await api("POST", "/api/pickjobs", pickJobBody(facilityId))).body;
    const line = job.pickLineItems[0].id;
    const res = await api(
      "POST",
      `/api/pickjobs/${job.id}/actions`,
      `{"name":"PICK","version":1,"lineItems":[{"id":"${line}","picked":1e400}]}`,
    );
    expectError(res, 400);
    expect((await api("GET", `/api/pickjobs/${job.id}`)).body.version).toBe(1);
  });
});

describe("10. roles named like Object properties grant nothing", () => {
  it.each([["constructor"], ["__proto__"], ["toString", "hasOwnProperty", "valueOf"]])(
    "roles %j -> 403 on every route, not 500",
    async (...roles) => {
      const t = await sys.token("hard", { roles });
      for (const [m, p] of [
        ["GET", "/api/categories"],
        ["GET", "/api/pickjobs"],
        ["POST", "/api/audits/search"],
      ] as const) {
        expectError(await sys.api(m, p, { token: t, body: m === "POST" ? { query: {} } : undefined }), 403);
      }
    },
  );
  it("a known role next to junk ones still works", async () => {
    const t = await sys.token("hard", { roles: ["constructor", "VIEWER", "__proto__"] });
    expect((await sys.api("GET", "/api/categories", { token: t })).status).toBe(200);
  });
});

describe("11. text must be valid Unicode", () => {
  const post = (bytes: Buffer) =>
    rawRequest(
      sys.baseUrl,
      message(
        "POST",
        "/api/categories",
        {
          Host: new URL(sys.baseUrl).host,
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          "Content-Length": String(bytes.length),
        },
        bytes,
      ),
    );
  const body = (inner: Buffer) =>
    Buffer.concat([Buffer.from('{"nameLocalized":{"en_US":"'), inner, Buffer.from('"}}')]);

  it.each([
    ["invalid byte", Buffer.from([0xff])],
    ["overlong '/'", Buffer.from([0xc0, 0xaf])],
    ["encoded surrogate", Buffer.from([0xed, 0xa0, 0x80])],
    ["truncated sequence", Buffer.from([0xe2, 0x82])],
  ])("%s in the body -> 400, nothing stored", async (_name, bytes) => {
    const before = (await api("GET", "/api/categories?size=500")).body.length;
    expectError(await post(body(bytes)), 400, "INVALID_ENCODING");
    expect((await api("GET", "/api/categories?size=500")).body.length).toBe(before);
  });

  it("a lone surrogate escape in JSON -> 400", async () => {
    expectError(
      await api("POST", "/api/categories", '{"nameLocalized":{"en_US":"a\\ud800b"}}'),
      400,
      "INVALID_CHARACTER",
    );
    expectError(
      await api("POST", "/api/categories", '{"nameLocalized":{"\\udc00":"x"}}'),
      400,
      "INVALID_CHARACTER",
    );
  });

  it("invalid or overlong percent-escapes in the path or query -> 400", async () => {
    for (const p of [
      "/api/categories/urn:fft:category:tenantCategoryId:%C0%AF",
      "/api/categories/urn:fft:category:tenantCategoryId:%ED%A0%80",
      "/api/audits?entityRef=%FF",
    ]) {
      expectError(await api("GET", p), 400);
    }
  });

  it("valid UTF-8 of every plane round-trips", async () => {
    const name = "Getränke 飲み物 💥";
    const res = await api("POST", "/api/categories", { nameLocalized: { en_US: name } });
    expect(res.status).toBe(201);
    expect((await api("GET", `/api/categories/${res.body.id}`)).body.nameLocalized.en_US).toBe(name);
  });
});

describe("12. stored input objects keep only their declared fields", () => {
  it("expectedPickLineItems: extra fields are dropped, not stored", async () => {
    const res = await api(
      "POST",
      "/api/pickjobs",
      pickJobBody(facilityId, {
        transfers: [{ id: "t-1", type: "SUPPLIER" }],
        expectedPickLineItems: [
          {
            article: { tenantArticleId: "9", title: "Expected", sneaky: 1 },
            quantity: 1,
            transferId: "t-1",
            status: "CLOSED",
            picked: 99,
            tenant: "someone-else",
          },
        ],
      }),
    );
    expect(res.status, res.text).toBe(201);
    const stored = (await api("GET", `/api/pickjobs/${res.body.id}`)).body.expectedPickLineItems[0];
    expect(stored).toMatchObject({
      quantity: 1,
      transferId: "t-1",
      article: { tenantArticleId: "9", title: "Expected" },
    });
    for (const k of ["status", "picked", "tenant"]) expect(stored).not.toHaveProperty(k);
    expect(stored.article).not.toHaveProperty("sneaky");
  });

  it("objects the reference closes refuse extras with 400 naming them", async () => {
    const body = pickJobBody(facilityId);
    (body.pickLineItems[0] as Record<string, unknown>).picked = 3;
    const e = expectError(await api("POST", "/api/pickjobs", body), 400, "VALIDATION_FAILED");
    expect(e).toMatchObject({ description: expect.stringContaining("picked") });
    const job = (await api("POST", "/api/pickjobs", pickJobBody(facilityId))).body;
    expectError(
      await api("POST", `/api/pickjobs/${job.id}/actions`, { name: "START", version: 1, status: "CLOSED" }),
      400,
    );
  });

  it("free-form customAttributes are kept as given", async () => {
    const attrs = { status: "x", nested: { picked: 1, tenant: "t" } };
    const res = await api("POST", "/api/pickjobs", pickJobBody(facilityId, { customAttributes: attrs }));
    expect(res.body.customAttributes).toEqual(attrs);
  });
});

describe("14. malformed requests get the error array", () => {
  const host = () => new URL(sys.baseUrl).host;
  it("headers too large -> 431 with our body", async () => {
    const res = await rawRequest(
      sys.baseUrl,
      message("GET", "/api/categories", { Host: host(), "X-Big": "x".repeat(20_000) }),
    );
    expectError(res, 431, "HEADERS_TOO_LARGE");
  });
  it("a control character in a header -> 400 with our body", async () => {
    const res = await rawRequest(
      sys.baseUrl,
      message("GET", "/api/categories", { Host: host(), "X-Bad": "a\u0001b" }),
    );
    expectError(res, 400, "MALFORMED_REQUEST");
  });
  it("Content-Length together with Transfer-Encoding -> 400 with our body", async () => {
    const res = await rawRequest(
      sys.baseUrl,
      message(
        "POST",
        "/api/categories",
        {
          Host: host(),
          "Content-Length": "4",
          "Transfer-Encoding": "chunked",
          "Content-Type": "application/json",
        },
        "0\r\n\r\n",
      ),
    );
    expectError(res, 400, "MALFORMED_REQUEST");
  });
  it("a body too large -> 413, an unknown media type -> 415, both with our body", async () => {
    expectError(await api("POST", "/api/categories", `"${"x".repeat(1_100_000)}"`), 413, "BODY_TOO_LARGE");
    expectError(
      await api("POST", "/api/categories", "a=b", { "content-type": "text/csv" }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });
});

describe("15. error descriptions are our words", () => {
  it("an invalid like pattern does not quote Postgres", async () => {
    const e = expectError(
      await api("POST", "/api/categories/search", { query: { name: { like: "(" } } }),
      400,
      "INVALID_REGEX",
    );
    expect(e).not.toMatchObject({
      description: expect.stringMatching(/parenthes|invalid regular expression:/i),
    });
  });
});

describe("16. token lifetimes", () => {
  const now = () => Math.floor(Date.now() / 1000);
  const claims = { tenant: "hard", sub: "u", roles: ["ADMIN"] };
  const call = async (t: string) => sys.api("GET", "/api/categories", { token: t });
  it("no exp -> 401", async () => {
    expectError(await call(await sys.sign({ ...claims, iat: now() })), 401, "INVALID_TOKEN");
  });
  it("exp decades away -> 401 TOKEN_LIFETIME_TOO_LONG", async () => {
    expectError(
      await call(await sys.sign({ ...claims, iat: now(), exp: now() + 30 * 365 * 86400 })),
      401,
      "TOKEN_LIFETIME_TOO_LONG",
    );
    expectError(
      await call(await sys.sign({ ...claims, exp: now() + 30 * 365 * 86400 })),
      401,
      "TOKEN_LIFETIME_TOO_LONG",
    );
  });
  it("iat in the future -> 401; within the skew allowance it works", async () => {
    expectError(
      await call(await sys.sign({ ...claims, iat: now() + 3600, exp: now() + 7200 })),
      401,
      "INVALID_TOKEN",
    );
    expect((await call(await sys.sign({ ...claims, iat: now() + 5, exp: now() + 3600 }))).status).toBe(200);
  });
  it("an ordinary 1-hour token works", async () => {
    expect((await call(await sys.sign({ ...claims, iat: now(), exp: now() + 3600 }))).status).toBe(200);
  });
});

describe("17. security headers", () => {
  it("nosniff everywhere; no-store on tenant data and its errors", async () => {
    const data = await api("GET", "/api/categories");
    expect(data.headers.get("x-content-type-options")).toBe("nosniff");
    expect(data.headers.get("cache-control")).toBe("no-store");
    const denied = await sys.api("GET", "/api/categories");
    expect(denied.status).toBe(401);
    expect(denied.headers.get("cache-control")).toBe("no-store");
    expect((await sys.api("GET", "/healthz")).headers.get("x-content-type-options")).toBe("nosniff");
  });
  it("the docs page has a CSP that forbids framing, and X-Frame-Options", async () => {
    const res = await fetch(`${sys.baseUrl}/docs/static/index.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });
  it("without CORS_ALLOWED_ORIGINS no origin is allowed, and a preflight needs no token", async () => {
    const pre = await fetch(`${sys.baseUrl}/api/categories`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("issue 25, 11. a key twice in one JSON object is refused at the door, REST and GraphQL alike", () => {
  // JSON.parse keeps the last value: the earlier one would pass every check unseen.
  it("REST: 400 DUPLICATE_KEY naming the key (escaped or nested too), nothing created or changed", async () => {
    const cases: [string, string, string][] = [
      [
        '{"tenantCategoryId":"DUP1","nameLocalized":{"en_US":"a\\u0000b"},"nameLocalized":{"en_US":"x"}}',
        "/nameLocalized",
        '"nameLocalized"',
      ],
      [
        '{"tenantCategoryId":"DUP2","nameLocalized":{"en_US":"a\\u0000b","en_US":"x"}}',
        "/nameLocalized/en_US",
        '"en_US"',
      ],
      [
        '{"tenantCategoryId":"DUP3","n\\u0061meLocalized":{"en_US":"\\ud800"},"nameLocalized":{"en_US":"x"}}',
        "/nameLocalized",
        '"nameLocalized"',
      ],
      [
        '{"nameLocalized":{"en_US":"x"},"tenantCategoryId":"DUP4","tenantCategoryId":"DUP5"}',
        "/tenantCategoryId",
        '"tenantCategoryId"',
      ],
    ];
    for (const [body, at, key] of cases) {
      const e = expectError(await api("POST", "/api/categories", body), 400, "DUPLICATE_KEY");
      expect(e).toMatchObject({ summary: "Invalid input." });
      expect((e as { description?: string }).description).toContain(
        `${at}: the key ${key} appears more than once`,
      );
    }
    for (const id of ["DUP1", "DUP2", "DUP3", "DUP4", "DUP5"]) {
      expect((await api("GET", `/api/categories/urn:fft:category:tenantCategoryId:${id}`)).status, id).toBe(
        404,
      );
    }
    const before = (await api("GET", `/api/facilities/${facilityId}`)).body;
    const patch = `{"version":${before.version},"name":"a\\u0000b","name":"Renamed"}`;
    expectError(await api("PATCH", `/api/facilities/${facilityId}`, patch), 400, "DUPLICATE_KEY");
    expect((await api("GET", `/api/facilities/${facilityId}`)).body).toMatchObject({
      name: before.name,
      version: before.version,
    });
    // The same keys in different objects are no duplicates.
    const fine = await api(
      "POST",
      "/api/categories",
      '{"tenantCategoryId":"DUP6","nameLocalized":{"en_US":"x"},"customAttributes":{"tenantCategoryId":1,"a":{"a":[{"a":1},{"a":2}]}}}',
    );
    expect(fine.status, fine.text).toBe(201);
  });

  it("GraphQL: the body, POST variables and GET variables get the same 400 in GraphQL's shape; nothing runs", async () => {
    const mutation = "mutation($in: CategoryForCreationInput!) { createCategory(input: $in) { id } }";
    const posts = [
      // variables: the earlier nameLocalized would be dropped unchecked
      `{"query":${JSON.stringify(mutation)},"variables":{"in":{"tenantCategoryId":"GDUP1","nameLocalized":{"en_US":"a\\u0000b"},"nameLocalized":{"en_US":"x"}}}}`,
      // the request body itself: which query would run?
      `{"query":"{ __typename }","query":${JSON.stringify(mutation)},"variables":{"in":{"tenantCategoryId":"GDUP2","nameLocalized":{"en_US":"x"}}}}`,
      `{"query":${JSON.stringify(mutation)},"variables":{"in":{"tenantCategoryId":"GDUP3","nameLocalized":{"en_US":"x"}}},"variables":{}}`,
    ];
    const answers = [];
    for (const body of posts) answers.push(await api("POST", "/graphql", body));
    const query = encodeURIComponent("query($id: ID!) { category(id: $id) { id } }");
    const vars = encodeURIComponent('{"id":"x","id":"y"}');
    answers.push(await api("GET", `/graphql?query=${query}&variables=${vars}`));
    for (const res of answers) {
      expect(res.status, res.text).toBe(400);
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors, res.text).toHaveLength(1);
      expect(res.body.errors[0].extensions).toMatchObject({ code: "DUPLICATE_KEY", status: 400 });
    }
    expect(answers.map((a) => a.body.errors[0].message.split(":")[0])).toEqual([
      "/variables/in/nameLocalized",
      "/query",
      "/variables",
      "/variables/id",
    ]);
    for (const id of ["GDUP1", "GDUP2", "GDUP3"]) {
      expect((await api("GET", `/api/categories/urn:fft:category:tenantCategoryId:${id}`)).status, id).toBe(
        404,
      );
    }
  });
});
