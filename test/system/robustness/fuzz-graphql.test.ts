/**
 * The fuzz's GraphQL mode: seeded hostile requests to /graphql (beta), documents built from the
 * gateway's SDL (gateway/schema.graphql) — random root fields of Query and Mutation, arguments of the
 * right and the wrong type (hostile strings, huge, negative and float ints, 1e400 as a literal, deep
 * input objects, enum values that do not exist, lists of 10,000 items, URNs with junk, unknown ids and
 * the other tenant's ids), random selections down the relationships, aliases (hundreds of one costly
 * field), fragments (cycles, unknown ones, fan-outs of 2^31 paths), @skip/@include with variables, several operations with and
 * without operationName, subscriptions, introspection — sent as JSON, GET, application/graphql, and
 * wrapped in what an HTTP layer must survive (invalid JSON and UTF-8, batches, empty bodies, other
 * media types, a 1 MB+ query, keys written twice in the body or its variables, no or bad tokens).
 *
 * Every answer: never a 5xx, neither as the HTTP status nor as an error entry's extensions.status; a
 * JSON object with `data` and/or `errors`, each error with message, extensions.code and a numeric
 * extensions.status; HTTP 200 only with data, a 4xx with GraphQL's errors (never REST's array) and the
 * status its errors name; no internal failure in a message; in time. Tenant isolation: the fuzz runs as
 * tenant B passing tenant A's ids and URNs everywhere, and no answer may hold any of A's ids or names
 * that the request did not carry itself (data never). Afterwards both tenants' data answer as before.
 *
 * FUZZ_SEED replays a run (each seed has tenants of its own); FUZZ_GRAPHQL_REQUESTS sets the number
 * of requests per seed.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { GraphQLField, GraphQLInputObjectType, GraphQLInputType, GraphQLNamedType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import {
  FUZZ_SEED,
  type Fuzz,
  type FuzzRequest,
  fuzz,
  fuzzProperty,
  fuzzRequests,
} from "../../support/fuzz.ts";
import {
  fragmentFanOut,
  HOSTILE_PATH_SEGMENTS,
  HOSTILE_STRINGS,
  hostileValue,
  jsonText,
  nested,
  PROTOTYPE_NAMES,
  RAW,
  RAW_NUMBERS,
  withDuplicateKey,
  withInvalidBytes,
} from "../../support/hostile.ts";
import { message, rawRequest } from "../../support/raw-http.ts";
import { type System, startSystem } from "../../support/system.ts";

/** graphql-js as CommonJS: the build the gateway (mercurius) loads. */
const gql = createRequire(import.meta.url)("graphql") as typeof import("graphql");
const SDL_PATH = path.resolve(import.meta.dirname, "../../../gateway/schema.graphql");
const schema = gql.buildSchema(readFileSync(SDL_PATH, "utf8"));
const QUERY = schema.getQueryType()!;
const MUTATION = schema.getMutationType()!;

const SEEDS = [FUZZ_SEED, FUZZ_SEED + 1, FUZZ_SEED + 2];
const REQUESTS = Number(process.env.FUZZ_GRAPHQL_REQUESTS ?? 300);
/** Requests per seed sent as raw bytes (not UTF-8) and without any token. */
const RAW_REQUESTS = 12;
const NO_TOKEN_REQUESTS = 12;
/** The gateway's cost limit (DEFAULT_LIMITS.maxComplexity). */
const MAX_COST = 50_000;
const UNKNOWN_ID = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
/** What only an internal failure writes into a message. */
const INTERNAL_TEXT =
  /Maximum call stack|Cannot read propert|is not a function|^\S+ is not defined$|undefined is not|\bat \S+ \(|node_modules|\.[jt]s:\d+/;

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.close());

// --- tenants --------------------------------------------------------------------------------------

interface Tenant {
  token: string;
  label: string;
  facility: any;
  pickJob: any;
  pickJob2: any;
  pickRun: any;
  category: any;
  stack: any;
  loadUnit: any;
  carrier: any;
  group: any;
  returnJob: any;
  cancelationReason: any;
  rerouteDescription: any;
  subscription: any;
  operativeContainerType: any;
  /** Every id the tenant's entities have (line items included). */
  ids: string[];
  /** The tenant's identifiers and names: tenantFacilityId, tenantCategoryId, ... */
  names: string[];
  /** Secrets no answer may ever show (the carrier's API key). */
  secrets: string[];
}

/** A tenant with one of everything the GraphQL schema reaches; `label` (upper-case) marks its values. */
async function seedTenant(tenant: string, label: string): Promise<Tenant> {
  const token = await sys.token(tenant);
  const api = sys.as(token);
  const ok = async (what: string, p: Promise<{ status: number; body: any; text: string }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${tenant}: ${what} answered ${r.status} ${r.text.slice(0, 300)}`);
    return r.body;
  };
  const facility = await ok(
    "facility",
    api("POST", "/api/facilities", {
      name: `${label} Facility`,
      tenantFacilityId: `${label}FAC`,
      address: facilityAddress,
    }),
  );
  const pickJob = await ok(
    "pick job",
    api("POST", "/api/pickjobs", pickJobBody(facility.id, { tenantOrderId: `${label}-ORDER` })),
  );
  const pickJob2 = await ok("pick job", api("POST", "/api/pickjobs", pickJobBody(facility.id)));
  const pickRun = await ok(
    "pick run",
    api("POST", "/api/pickruns", { facilityRef: facility.id, pickJobRefs: [pickJob2.id] }),
  );
  const category = await ok(
    "category",
    api("POST", "/api/categories", {
      tenantCategoryId: `${label}CAT`,
      nameLocalized: { en_US: `${label} Category` },
    }),
  );
  const stack = await ok(
    "stack",
    api("POST", "/api/stacks", { facilityRefs: [facility.id], processRefs: [] }),
  );
  const [loadUnit] = await ok(
    "load unit",
    api("POST", "/api/loadunits", { loadUnits: [{ pickJobRefs: [pickJob.id], stackRef: stack.id }] }),
  );
  const carrier = await ok(
    "carrier",
    api("POST", "/api/carriers", {
      key: `CUSTOM_${label}`,
      name: `${label} Carrier`,
      credentials: { key: `CUSTOM_${label}`, apiKey: `${label}-api-secret` },
    }),
  );
  const group = await ok(
    "facility group",
    api("POST", "/api/facilitygroups", {
      tenantFacilityGroupId: `${label}GRP`,
      nameLocalized: { en_US: `${label} Group` },
      facilityRefs: [facility.id],
    }),
  );
  const returnJob = await ok(
    "item return job",
    api("POST", "/api/itemreturnjobs", {
      originFacilityRefs: [facility.id],
      status: "OPEN",
      consumerAddresses: [facilityAddress],
      returnableLineItems: [{ article: { tenantArticleId: `${label}-ART`, title: "T" }, delivered: 1 }],
    }),
  );
  const cancelationReason = await ok(
    "cancelation reason",
    api("POST", "/api/cancelationreasons", { reason: `${label}-CANCEL`, reasonLocalized: { en_US: "R" } }),
  );
  const rerouteDescription = await ok(
    "reroute description",
    api("POST", "/api/reroutedescriptions", { reason: `${label}-REROUTE`, reasonLocalized: { en_US: "R" } }),
  );
  const subscription = await ok(
    "subscription",
    api("POST", "/api/subscriptions", {
      name: `${label}-SUB`,
      event: "PICK_JOB_CREATED",
      target: { type: "WEBHOOK", callbackUrl: "http://127.0.0.1:9/fuzz-graphql" },
    }),
  );
  const operativeContainerType = await ok(
    "operative container type",
    api("POST", "/api/operativecontainertypes", {
      nameLocalized: { en_US: `${label} Container` },
      allowedOperativeTypes: ["PICKING"],
    }),
  );
  const ids = [
    operativeContainerType.id,
    facility.id,
    pickJob.id,
    ...pickJob.pickLineItems.map((l: any) => l.id),
    pickJob2.id,
    ...pickJob2.pickLineItems.map((l: any) => l.id),
    pickRun.id,
    category.id,
    stack.id,
    loadUnit.id,
    carrier.id,
    group.id,
    returnJob.id,
    ...returnJob.returnableLineItems.map((l: any) => l.id),
    cancelationReason.id,
    rerouteDescription.id,
    subscription.id,
  ];
  return {
    token,
    label,
    facility,
    pickJob,
    pickJob2,
    pickRun,
    category,
    stack,
    loadUnit,
    carrier,
    group,
    returnJob,
    cancelationReason,
    rerouteDescription,
    subscription,
    operativeContainerType,
    ids,
    names: [
      `${label}FAC`,
      `${label} Facility`,
      `${label}-ORDER`,
      `${label}CAT`,
      `${label} Category`,
      `CUSTOM_${label}`,
      `${label} Carrier`,
      `${label}GRP`,
      `${label} Group`,
      `${label}-ART`,
      `${label}-CANCEL`,
      `${label}-REROUTE`,
      `${label}-SUB`,
      `${label} Container`,
    ],
    secrets: [`${label}-api-secret`],
  };
}

// --- GraphQL values -------------------------------------------------------------------------------

/** An enum value (a bare name in a literal, a string in variables). */
class Enum {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
}
/** A variable used inside a literal (e.g. within a JSON scalar's object). */
class VarRef {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}
const RAW_MARKER = /^@@RAW:(.*)@@$/;

/** `v` as a GraphQL literal (RAW markers as their raw text, e.g. 1e400). */
function literal(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (v instanceof Enum) return v.value;
  if (v instanceof VarRef) return `$${v.name}`;
  if (typeof v === "string") {
    const raw = RAW_MARKER.exec(v);
    return raw ? raw[1]! : JSON.stringify(v);
  }
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(literal).join(", ")}]`;
  return `{${Object.entries(v as object)
    .map(([k, x]) => `${k}: ${literal(x)}`)
    .join(", ")}}`;
}

/** `v` as a variable's JSON value (RAW markers stay, for jsonText). */
function jsonValue(v: unknown): unknown {
  if (v instanceof Enum) return v.value;
  if (v instanceof VarRef) return null;
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  return v;
}

const base64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");

/** `v` with its strings well-formed (a lone surrogate cannot be written in a GraphQL string). */
function wellFormed(v: unknown): unknown {
  if (typeof v === "string") return v.isWellFormed() ? v : v.toWellFormed();
  if (Array.isArray(v)) return v.map(wellFormed);
  if (v && typeof v === "object" && !(v instanceof Enum) && !(v instanceof VarRef))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wellFormed(x)]));
  return v;
}

/** Whether the JSON body's door lets `v` through as a variable: depth, NUL, surrogates, numbers, keys. */
function fitsJsonBody(v: unknown, depth = 2): boolean {
  if (depth > 30) return false;
  if (typeof v === "string") return RAW_MARKER.test(v) ? false : v.isWellFormed() && !v.includes("\u0000");
  if (Array.isArray(v)) return v.every((x) => fitsJsonBody(x, depth + 1));
  if (v && typeof v === "object" && !(v instanceof Enum))
    return Object.entries(v).every(([k, x]) => k !== "__proto__" && fitsJsonBody(x, depth + 1));
  return typeof v !== "number" || Number.isSafeInteger(v) || (Number.isFinite(v) && !Number.isInteger(v));
}

// --- the generator --------------------------------------------------------------------------------

interface Pools {
  /** Tenant A's (the other tenant's) ids, URNs and names. */
  foreignIds: string[];
  foreignUrns: string[];
  /** Tenant B's (the caller's) own ids and URNs. */
  ownIds: string[];
  ownUrns: string[];
  /** Cursors the answers handed out, plus forged ones. */
  cursors: string[];
  /** Tenant B's entity for each by-id root field (pickJob -> its pick job's id, ...). */
  ownByField: Record<string, string>;
}

/** What a request is, for its check. */
interface Meta {
  kind: string;
  /** Over the cost limit by construction: must be refused. */
  bomb?: boolean;
  /** Must be refused (a 4xx): the HTTP layer or the document is broken by construction. */
  refuse?: boolean;
}

/** Object-typed fields the gateway resolves by another call: the fuzz favours them. */
const RELATIONSHIPS = new Set([
  "facility",
  "facilities",
  "loadUnits",
  "stack",
  "configuration",
  "originFacilities",
  "pickJobs",
  "edges",
  "node",
]);

/** Costly selections: each costs more than 750 (a page of 250 times a selection of at least 3). */
const COSTLY = [
  "pickJobs(first: 250) { edges { node { id facility { id } loadUnits { id stack { id } } } } }",
  "carriers(first: 250) { edges { node { id configuration { id countryServiceMappings { id } } } } }",
  "itemReturnJobs(first: 250) { edges { node { id originFacilities { id } } } }",
  "facilities(first: 250) { totalCount edges { node { id name } } }",
  "categories(first: 250) { totalCount edges { cursor node { id nameLocalized } } }",
];

function generator(f: Fuzz, pools: Pools, bravoReader: string) {
  const { r, int, pick } = f;

  // Per document: variable definitions of the operation being built, the variables, fragments.
  let defs: string[] = [];
  let vars: Record<string, unknown> = {};
  let fragments: string[] = [];
  let counter = 0;
  /**
   * Mutations get the other tenant's values only as the root field's `id` (elsewhere they could be
   * stored, then read back as B's own data).
   */
  let inMutation = false;
  let rootId = false;
  /** A sloppy document has values of the wrong type, unknown fields and the like; the others validate. */
  let sloppy = false;
  const oops = (p: number) => sloppy && r() < p;
  /** A walk: a valid document down the relationships from one of B's own entities. */
  let walk = false;
  /** The field whose arguments are being made. */
  let currentField = "";

  const uuidish = () =>
    `0190d6e8-${int(0x10000).toString(16).padStart(4, "0")}-7f1b-9d2e-${int(0x1000000).toString(16).padStart(12, "0")}`;
  const urn = (): string => {
    const k = int(10);
    if (k < 3 && (!inMutation || rootId)) return pick(pools.foreignUrns);
    if (k < 5) return pick(pools.ownUrns);
    const entity = pick([
      ["facility", "tenantFacilityId"],
      ["category", "tenantCategoryId"],
      ["facilitygroup", "tenantFacilityGroupId"],
      ["pickjob", "id"],
      ["constructor", "__proto__"],
    ]);
    const junk = pick<string>([
      "",
      "x",
      "%00",
      "a\u0000b",
      "\ud800",
      "x".repeat(3000),
      ...HOSTILE_STRINGS.slice(0, 12),
      ...PROTOTYPE_NAMES,
      ...(inMutation ? [] : pools.foreignIds),
    ]);
    return pick([
      `urn:fft:${entity[0]}:${entity[1]}:${junk}`,
      `URN:FFT:${entity[0]!.toUpperCase()}:${entity[1]}:${junk}`,
      `urn:other:${entity[0]}:${entity[1]}:${junk}`,
      "urn:fft::",
      "urn:",
      `urn:fft:facility:tenantFacilityId:${junk}:${junk}`,
    ]);
  };
  const anId = (): string => {
    if (walk && pools.ownByField[currentField]) return pools.ownByField[currentField]!;
    const k = r();
    if (k < 0.35 && (!inMutation || rootId)) return pick(pools.foreignIds);
    if (k < 0.7) return pick(pools.ownIds);
    if (k < 0.87) return urn();
    return pick([
      uuidish(),
      UNKNOWN_ID,
      "",
      " ",
      "x",
      "00000000-0000-0000-0000-000000000000",
      ...HOSTILE_STRINGS,
    ]);
  };
  const cursor = (): string =>
    pick([
      ...pools.cursors,
      ...pools.cursors.map((c) => `${c}x`),
      ...pools.cursors.map((c) => c.slice(0, -2)),
      ...(inMutation ? [] : pools.foreignIds.slice(0, 4).map((id) => base64url(`id:${id}`))),
      base64url(`id:${pick(pools.ownIds)}`),
      base64url("id:not-a-uuid"),
      base64url(JSON.stringify({ id: UNKNOWN_ID, v: [1e308] })),
      "garbage",
      "",
      "\u0000",
      "=",
      "x".repeat(5000),
      ...HOSTILE_STRINGS.slice(0, 8),
    ]);
  const aString = (name: string): string => {
    if (/^(after|before)$/.test(name)) return cursor();
    if (/(Ref|Refs|Id|facility|subscriptionId)$/i.test(name) && r() < 0.7) return anId();
    return pick<string>([
      "x",
      "",
      "Fuzz",
      "en_US",
      "de_DE",
      "%",
      "_",
      "'; drop table category; --",
      ...HOSTILE_STRINGS,
      ...(inMutation ? [] : [pick(pools.foreignIds), pick(pools.foreignUrns)]),
      pick(pools.ownIds),
    ]);
  };
  const anInt = (name: string): unknown =>
    /^(first|last)$/.test(name) && r() < 0.6
      ? pick([1, 2, 3, 5, 25, 250])
      : !sloppy
        ? pick([0, 1, -1, 7, 250, 251, -250, 2147483647, -2147483648])
        : pick([
            2147483648,
            -2147483649,
            1.5,
            -0.5,
            RAW("1e400"),
            RAW("-1e400"),
            RAW("9007199254740993"),
            RAW("123456789012345678901234567890"),
            RAW("1e3"),
            "5",
            true,
          ]);
  const aFloat = (): unknown =>
    pick([0, 1, 0.5, -1, 1e308, -1e308, 4.9e-324, ...RAW_NUMBERS.map(RAW), ...(sloppy ? ["1.5", true] : [])]);
  const aDate = (): unknown =>
    pick([
      "2026-01-01T00:00:00.000Z",
      "2020-02-03T08:45:50.525Z",
      "2026-13-45T25:61:00Z",
      "+275760-09-13T00:00:00.000Z",
      "-271821-04-20T00:00:00.000Z",
      "0000-00-00T00:00:00Z",
      "",
      "now",
      ...(sloppy ? [1, true] : []),
    ]);
  /** A deep chain of objects and lists (a JSON scalar's value), `depth` levels. */
  const chain = (depth: number): unknown => {
    let v: unknown = pick(["leaf", 1, null]);
    for (let i = 0; i < depth; i++) v = r() < 0.5 ? { a: v } : [v];
    return v;
  };
  const aJson = (literalMode: boolean): unknown => {
    switch (int(12)) {
      case 0:
      case 1:
        return { en_US: pick(["Fuzz", "Ä", "", ...HOSTILE_STRINGS.slice(0, 6)]) };
      case 2:
        return { de_DE: "x", en_US: "y", [pick(PROTOTYPE_NAMES)]: "z" };
      case 3:
        return hostileValue(f);
      case 4:
        return chain(10 + int(150));
      case 5:
        return nested(10 + int(60), f);
      case 6:
        return pick([{}, [], 1, "s", true, null, { a: { b: { c: [1, 2, { d: null }] } } }]);
      case 7: {
        // A variable inside the literal.
        if (!literalMode) return { en_US: "Fuzz" };
        const name = `j${counter++}`;
        vars[name] = pick(["Fuzz", 1, null, ["a"], { a: 1 }]);
        if (r() < 0.3) {
          defs.push(`$${name}: JSON`); // the whole value
          return new VarRef(name);
        }
        defs.push(`$${name}: ${pick(["String", "Int", "JSON", "[String]"])}`); // within the value
        return pick([{ en_US: new VarRef(name) }, { a: [new VarRef(name)] }]);
      }
      case 8:
        return { k: RAW(pick(RAW_NUMBERS)), j: [RAW(pick(RAW_NUMBERS))] };
      case 9:
        return JSON.parse(`{"${pick(PROTOTYPE_NAMES)}": {"polluted": true}, "en_US": "x"}`);
      case 10:
        return Object.fromEntries(Array.from({ length: 200 + int(2000) }, (_, i) => [`k${i}`, i]));
      default:
        return f.weird();
    }
  };
  /** A value of the wrong type (or a hostile one). */
  const wrong = (): unknown =>
    pick([
      () => f.weird(),
      () => hostileValue(f),
      () => new Enum(pick(["NOT_A_VALUE", "__proto__", "constructor", "true", "null_"])),
      () => pick([1, 1.5, true, "s", [], {}, null, RAW("1e400")]),
      () => ({ [pick(["nope", ...PROTOTYPE_NAMES])]: 1 }),
    ])();

  /** A value for an input of `type` (argument or input field `name`). */
  const valueFor = (type: GraphQLInputType, name: string, depth: number, literalMode: boolean): unknown => {
    if (oops(0.12)) return wrong();
    if (gql.isNonNullType(type)) return valueFor(type.ofType, name, depth, literalMode);
    if (gql.isListType(type)) {
      const k = r();
      if (k < 0.025) return Array.from({ length: 10_000 }, (_, i) => simple(gql.getNamedType(type), i));
      if (k < 0.1) return valueFor(type.ofType, name, depth + 1, literalMode); // one value for a list
      return Array.from({ length: int(4) }, () => valueFor(type.ofType, name, depth + 1, literalMode));
    }
    if (gql.isInputObjectType(type)) return inputObject(type, depth, literalMode);
    if (gql.isEnumType(type)) {
      const values = type.getValues();
      if (!oops(0.3)) return new Enum(pick(values).name);
      return pick([
        new Enum("NOT_A_VALUE"),
        new Enum("__proto__"),
        values[0]!.name,
        values[0]!.name.toLowerCase(),
      ]);
    }
    switch ((type as GraphQLNamedType).name) {
      case "ID":
        return anId();
      case "String":
        return aString(name);
      case "Int":
        return anInt(name);
      case "Float":
        return aFloat();
      case "Boolean":
        return pick([true, false]);
      case "DateTime":
        return aDate();
      case "JSON":
        return aJson(literalMode);
      default:
        return f.weird();
    }
  };
  /** One item of a 10,000-item list. */
  const simple = (type: GraphQLNamedType, i: number): unknown => {
    if (gql.isEnumType(type)) return new Enum(type.getValues()[i % type.getValues().length]!.name);
    if (gql.isInputObjectType(type)) return {};
    if (type.name === "Int" || type.name === "Float") return i;
    if (type.name === "Boolean") return true;
    return i % 97 === 0 && !inMutation ? pick(pools.foreignIds) : `c${i}`;
  };
  const inputObject = (type: GraphQLInputObjectType, depth: number, literalMode: boolean): unknown => {
    const fields = Object.values(type.getFields());
    const self = fields.find((x) => x.name === "and" || x.name === "or");
    if (self && depth < 2 && r() < 0.05) {
      // Deeply nested: and/or within and/or, with one leaf filter at the bottom.
      const leaf = fields.find((x) => gql.isInputObjectType(gql.getNamedType(x.type)) && x !== self);
      let v: unknown = leaf ? { [leaf.name]: { eq: anId() } } : {};
      for (let i = 0, n = 20 + int(140); i < n; i++) v = { [self.name]: [v] };
      return v;
    }
    const out: Record<string, unknown> = {};
    if (depth > 6) return out;
    for (const field of fields) {
      if (gql.isNonNullType(field.type) || r() < (depth > 2 ? 0.15 : 0.35))
        out[field.name] = valueFor(field.type, field.name, depth + 1, literalMode);
    }
    if (oops(0.08)) out[pick(["nope", ...PROTOTYPE_NAMES])] = f.weird();
    return out;
  };

  /** An argument's value, as a literal or through a variable. */
  const argument = (name: string, type: GraphQLInputType): string => {
    if (r() < 0.3) {
      const v = valueFor(type, name, 0, false);
      // A value the JSON body's door refuses makes a sloppy document; otherwise it goes as a literal.
      if (!sloppy && !fitsJsonBody(v)) return literal(wellFormed(v));
      const variable = `v${counter++}`;
      const declared = !oops(0.2)
        ? String(type)
        : pick(["String", "Int", "[Int]", "Boolean!", "JSON", "Nope", "ID!", "[[ID]]"]);
      defs.push(`$${variable}: ${declared}${r() < 0.04 ? ` = ${literal(v)}` : ""}`);
      if (!oops(0.3)) vars[variable] = jsonValue(v);
      else if (r() < 0.5) vars[variable] = f.weird(); // else: missing
      return `$${variable}`;
    }
    const v = valueFor(type, name, 0, true);
    return literal(sloppy ? v : wellFormed(v));
  };

  const directive = (): string => {
    if (r() > 0.06) return "";
    const k = int(5);
    if (k === 0) {
      const name = `s${counter++}`;
      defs.push(`$${name}: Boolean!`);
      vars[name] = oops(0.4) ? pick(["yes", 1, null, undefined]) : pick([true, false]);
      return ` @skip(if: $${name})`;
    }
    if (k === 1) {
      const name = `i${counter++}`;
      defs.push(`$${name}: Boolean${!oops(0.5) ? " = true" : ""}`);
      if (r() < 0.5) vars[name] = pick([true, false]);
      return ` @include(if: $${name})`;
    }
    if (k === 2 || !sloppy) return pick([" @skip(if: false)", " @include(if: true)", " @skip(if: true)"]);
    return pick([
      ' @skip(if: "yes")',
      " @include",
      " @nope",
      " @skip(if: false) @skip(if: true)",
      " @deprecated",
    ]);
  };
  /** An alias: in a sloppy document one that may clash with a field or another alias. */
  const alias = (): string =>
    r() >= 0.12
      ? ""
      : sloppy
        ? `${pick(["a", "b1", "x_y", "id", "node", "edges", "data", "errors", ...PROTOTYPE_NAMES])}: `
        : `${pick(["a", "data", "errors", ...PROTOTYPE_NAMES])}_${counter++}: `;

  /** A random selection set of `type`, `depth` levels below the root. */
  const selection = (type: GraphQLNamedType, depth: number, maxDepth: number): string => {
    if (!gql.isObjectType(type)) return "{ __typename }";
    const fields = Object.values(type.getFields());
    const leaves = fields.filter((x) => gql.isLeafType(gql.getNamedType(x.type)));
    if (depth >= maxDepth) return `{ ${leaves.length && r() < 0.8 ? pick(leaves).name : "__typename"} }`;
    const parts: string[] = [];
    for (let i = 0, n = 1 + int(4); i < n; i++) {
      const named = fields.filter((x) => RELATIONSHIPS.has(x.name));
      const objects = fields.filter((x) => gql.isObjectType(gql.getNamedType(x.type)));
      const w = r();
      const field =
        named.length && w < (walk ? 0.8 : 0.4)
          ? pick(named)
          : objects.length && w < 0.6
            ? pick(objects)
            : pick(fields);
      parts.push(fieldText(field, depth, maxDepth));
    }
    const k = r();
    if (k < 0.08) parts.push("__typename");
    else if (k < 0.14) parts.push(`... on ${type.name} ${selection(type, depth, maxDepth)}`);
    else if (k < 0.2) {
      const name = `F${counter++}`;
      fragments.push(`fragment ${name} on ${type.name} ${selection(type, depth, maxDepth)}`);
      parts.push(`...${name}${directive()}`);
    } else if (oops(0.1))
      parts.push(pick(["nope", "...Nope", "... on Nope { id }", "__schema { queryType { name } }"]));
    return `{ ${parts.join(" ")} }`;
  };

  const fieldText = (field: GraphQLField<unknown, unknown>, depth: number, maxDepth: number): string => {
    currentField = field.name;
    const args = field.args
      .filter((a) => gql.isNonNullType(a.type) || r() < 0.4)
      .map((a) => {
        rootId = depth === 0 && a.name === "id";
        const text = `${a.name}: ${argument(a.name, a.type)}`;
        rootId = false;
        return text;
      });
    if (oops(0.04)) args.push(pick(["nope: 1", "first: 1, first: 2", `id: ${literal(anId())}`]));
    const named = gql.getNamedType(field.type);
    let sub = "";
    if (!gql.isLeafType(named)) {
      if (!oops(0.03)) sub = ` ${selection(named, depth + 1, maxDepth)}`;
    } else if (oops(0.03)) sub = " { id }";
    return `${alias()}${field.name}${args.length ? `(${args.join(", ")})` : ""}${directive()}${sub}`;
  };

  /** One operation on the root `kind`. */
  const operation = (kind: "query" | "mutation" | "subscription", name?: string): string => {
    defs = [];
    inMutation = kind === "mutation";
    const root = kind === "mutation" ? MUTATION : QUERY;
    const all = Object.values(root.getFields());
    const fields = walk ? all.filter((x) => pools.ownByField[x.name] || x.name.endsWith("s")) : all;
    const maxDepth = walk ? 5 + int(4) : 2 + int(6);
    const used = new Set<string>();
    const parts: string[] = [];
    for (let i = 0, n = kind === "mutation" ? 1 + int(2) : 1 + int(3); i < n; i++) {
      const field = pick(fields);
      const text = fieldText(field, 0, maxDepth);
      // A root field twice with other arguments needs an alias.
      parts.push(used.has(field.name) && !/^\w+: /.test(text) ? `f${i}: ${text}` : text);
      used.add(field.name);
    }
    if (oops(0.06)) parts.push(pick(["...Nope", "...Cycle1"]));
    inMutation = false;
    const head = `${kind}${name ? ` ${name}` : ""}${defs.length ? `(${defs.join(", ")})` : ""}`;
    return kind === "query" && !name && !defs.length && r() < 0.5
      ? `{ ${parts.join(" ")} }`
      : `${head} { ${parts.join(" ")} }`;
  };

  const introspection = (): string => {
    const typeName = pick(Object.keys(schema.getTypeMap()));
    const k = int(5);
    if (k === 0) return "{ __schema { queryType { name } mutationType { name } types { name kind } } }";
    if (k === 1)
      return `{ __type(name: ${JSON.stringify(pick([typeName, "Nope", "", "__proto__"]))}) { name kind fields { name args { name } type { name kind ofType { name kind } } } } }`;
    if (k === 2) {
      // Down the type graph: deep enough to meet the depth and cost limits.
      let sel = "name";
      for (let i = 0, n = 3 + int(20); i < n; i++)
        sel = `name fields { name type { name ofType { ${sel} } } }`;
      return `{ __schema { types { ${sel} } } }`;
    }
    if (k === 3) return gql.getIntrospectionQuery({ descriptions: r() < 0.5, inputValueDeprecation: true });
    return `{ __typename ${alias()}__typename __type(name: "PickJob") { fields { name } } }`;
  };

  /** A document with its variables and operationName. */
  const document = (): { query: string; variables: Record<string, unknown>; operationName?: unknown } => {
    vars = {};
    fragments = [];
    sloppy = r() < 0.4;
    walk = !sloppy && r() < 0.25;
    const k = walk ? 0 : r();
    let query: string;
    let operationName: unknown;
    if (k < 0.62) query = operation("query");
    else if (k < 0.8) query = operation("mutation", r() < 0.3 ? "M" : undefined);
    else if (k < 0.9) {
      // Several operations: operationName right, missing, unknown or not a string.
      const ops = Array.from({ length: 2 + int(2) }, (_, i) =>
        operation(r() < 0.75 ? "query" : "mutation", `Op${i}`),
      );
      if (r() < 0.1) ops.push(operation("query")); // an anonymous one among named ones
      query = ops.join("\n");
      const c = r();
      operationName =
        c < 0.65
          ? `Op${int(ops.length)}`
          : c < 0.8
            ? undefined
            : pick(["Nope", "", "op0", "__proto__", "toString", 1, null, ["Op0"], { name: "Op0" }]);
    } else if (k < 0.95) query = introspection();
    else
      query =
        r() < 0.5 ? operation("subscription") : `subscription S { ${pick(Object.keys(QUERY.getFields()))} }`;
    if (oops(0.1) || query.includes("...Cycle1")) {
      fragments.push("fragment Cycle1 on Query { ...Cycle2 } fragment Cycle2 on Query { ...Cycle1 }");
      if (!query.includes("...Cycle1")) query = query.replace(/\{/, "{ ...Cycle1 ");
    }
    if (fragments.length) query = `${query}\n${fragments.join("\n")}`;
    if (r() < 0.08) vars[pick(["extra", "__typename", ...PROTOTYPE_NAMES.slice(1)])] = f.weird(); // undeclared
    return { query, variables: vars, ...(operationName === undefined ? {} : { operationName }) };
  };

  /** Hundreds of aliases of one costly field, one maybe with a negative page; over the limit either way. */
  const aliasBomb = (): string => {
    const costly = pick(COSTLY);
    // Each alias costs more than 750 (a page of 250 times a selection of at least 3).
    const n = Math.ceil(MAX_COST / 750) + int(330);
    const aliases = Array.from({ length: n }, (_, i) => `a${i}: ${costly}`);
    if (r() < 0.4)
      aliases.push(
        `neg: ${pick(["facilities", "carriers", "pickJobs", "categories"])}(first: ${pick([-1, -1000, -2147483648])}) { edges { node { id } } }`,
      );
    return `{ ${aliases.join(" ")} }`;
  };

  const authorization = (): Record<string, string> => {
    const k = r();
    if (k < 0.9) return {};
    if (k < 0.94) return { authorization: `Bearer ${bravoReader}` };
    return {
      authorization: pick([
        "Bearer x.y.z",
        "Bearer ",
        "Basic Zm9vOmJhcg==",
        `Bearer ${"a".repeat(5000)}`,
        "Bearer \u00e9",
        `bearer ${bravoReader}x`,
        "Bearer eyJhbGciOiJub25lIn0.eyJ0ZW5hbnQiOiJhbHBoYSJ9.",
      ]),
    };
  };

  const json = (headers: Record<string, string> = {}) => ({ "content-type": "application/json", ...headers });

  /** The next request and what it is. */
  const request = (): { req: FuzzRequest; meta: Meta } => {
    const k = r();
    const doc = document();
    const body = { query: doc.query, variables: doc.variables, operationName: doc.operationName };
    if (k < 0.55) {
      const b: Record<string, unknown> = { query: doc.query };
      if (Object.keys(doc.variables).length || r() < 0.2) b.variables = doc.variables;
      if (doc.operationName !== undefined) b.operationName = doc.operationName;
      return {
        req: {
          method: "POST",
          path: "/graphql",
          body: jsonText(b),
          headers: { ...json(), ...authorization() },
        },
        meta: { kind: "document" },
      };
    }
    if (k < 0.65) {
      // GET: queries only; some query parameters malformed.
      const params = [`query=${encodeURIComponent(doc.query)}`];
      if (Object.keys(doc.variables).length)
        params.push(`variables=${encodeURIComponent(jsonText(doc.variables))}`);
      if (typeof doc.operationName === "string")
        params.push(`operationName=${encodeURIComponent(doc.operationName)}`);
      if (r() < 0.3)
        params.push(
          pick([
            "variables=%7B",
            `variables=${encodeURIComponent('{"a":"\\u0000","b":"\\ud800"}')}`,
            `variables=${encodeURIComponent(withDuplicateKey(jsonText(doc.variables), jsonText(hostileValue(f)), f))}`,
            `query=${encodeURIComponent(fragmentFanOut(int(31)))}`,
            "variables=%5B%5D",
            "variables=null",
            "extensions=%7B",
            "extensions=%7B%22persistedQuery%22%3A1%7D",
            "query=%7B",
            "query=",
            `query=${pick(HOSTILE_PATH_SEGMENTS)}`,
            `variables=${pick(HOSTILE_PATH_SEGMENTS)}`,
            `operationName=${pick(HOSTILE_PATH_SEGMENTS)}`,
            "operationName=",
          ]),
        );
      const target = `/graphql?${params.join("&")}`;
      // Past 16 KiB the request line is refused before any route (a pinned finding); keep most GETs shorter.
      if (target.length > 12_000 && r() < 0.95) return request();
      return { req: { method: "GET", path: target, headers: authorization() }, meta: { kind: "get" } };
    }
    if (k < 0.7)
      return {
        req: {
          method: "POST",
          path: "/graphql",
          body: doc.query,
          headers: { "content-type": pick(["application/graphql", "application/graphql; charset=utf-8"]) },
        },
        meta: { kind: "application/graphql" },
      };
    if (k < 0.76) {
      // The body mutated: a member replaced by something weird, removed, or added.
      return {
        req: { method: "POST", path: "/graphql", body: jsonText(f.mutate(body)), headers: json() },
        meta: { kind: "mutated body" },
      };
    }
    if (k < 0.8) {
      const query = aliasBomb();
      return {
        req: { method: "POST", path: "/graphql", body: jsonText({ query }), headers: json() },
        meta: { kind: "alias bomb", bomb: true },
      };
    }
    // The HTTP layer: bodies GraphQL never sees (refused: a 4xx) and a few it does see.
    const badNumber = pick(["1e400", "-1e400", "9007199254740993", "123456789012345678901234567890"]);
    const broken: [unknown, Record<string, string>, boolean][] = [
      ["{", json(), true],
      ['{"query":', json(), true],
      ['{"query":"{ __typename }"', json(), true],
      ["", json(), true],
      ["null", json(), true],
      ['"{ __typename }"', json(), true],
      ["1e400", json(), true],
      [`{"query":"{ __typename }","variables":${"[".repeat(40)}${"]".repeat(40)}}`, json(), true],
      ['{"query":"{ __typename }","variables":{"__proto__":{"polluted":true}}}', json(), true],
      ['{"query":"{ __typename }","variables":{"a":"\\u0000"}}', json(), true],
      ['{"query":"{ __typename }","variables":{"b":"\\ud800"}}', json(), true],
      [`{"query":"query($n: Int) { __typename }","variables":{"n":${badNumber}}}`, json(), true],
      [jsonText([{ query: doc.query }, { query: "{ __typename }" }]), json(), true], // a batch: off
      [jsonText([]), json(), true],
      [jsonText({ query: pick([1, null, true, [doc.query], { query: doc.query }, ""]) }), json(), true],
      [jsonText({ ...body, variables: pick(['{"a":1}', "x", [1, 2], 1, true]) }), json(), true],
      [jsonText({ ...body, extensions: pick(["x", 1, []]) }), json(), true],
      [jsonText({ ...body, extensions: { persistedQuery: { version: 1, sha256Hash: "x" } } }), json(), false],
      [jsonText({ ...body, variables: null }), json(), false],
      [jsonText({}), json(), true],
      [jsonText({ variables: doc.variables }), json(), true],
      [doc.query, { "content-type": "text/plain" }, true],
      [
        `query=${encodeURIComponent(doc.query)}`,
        { "content-type": "application/x-www-form-urlencoded" },
        true,
      ],
      [
        jsonText(body),
        { "content-type": pick(["text/plain", "application/xml", "multipart/form-data", ""]) },
        true,
      ],
      // A key twice (the body's, the variables', deeper): JSON.parse would drop the earlier value unseen.
      [withDuplicateKey(jsonText(body), jsonText(hostileValue(f)), f), json(), true],
      [
        jsonText({ ...body, variables: { in: { a: 1 } } }).replace(
          '{"a":1}',
          `{"a":${jsonText(hostileValue(f))},"a":1}`,
        ),
        json(),
        true,
      ],
      // Fragment fan-outs: 2^(n+1) paths in 2n + 2 fragments; over the cost limit from n = 15.
      [jsonText({ query: fragmentFanOut(15 + int(16)) }), json(), true],
      [jsonText({ query: fragmentFanOut(int(8)) }), json(), false],
      [jsonText({ query: `{ ${"__typename ".repeat(100_000)}}` }), json(), true], // 1 MB+
      [`{ ${"__typename ".repeat(100_000)}}`, { "content-type": "application/graphql" }, true], // 1 MB+
      [
        jsonText({ query: doc.query }),
        json({ authorization: pick(["Bearer x", "Bearer ", "Token t", "Bearer a b"]) }),
        true,
      ],
    ];
    const [b, headers, refuse] = pick(broken);
    return { req: { method: "POST", path: "/graphql", body: b, headers }, meta: { kind: "http", refuse } };
  };

  return { request, document };
}

// --- what every answer must be --------------------------------------------------------------------

const isGraphqlErrorBody = (body: any): boolean =>
  Boolean(body) &&
  typeof body === "object" &&
  !Array.isArray(body) &&
  Array.isArray(body.errors) &&
  body.errors.length > 0;

/** The text of what a request sent (path and body), to tell an echo from a leak. */
const sentText = (req: FuzzRequest): string => {
  let target = req.path;
  try {
    target = decodeURIComponent(req.path.replace(/\+/g, " "));
  } catch {}
  return `${req.path} ${target} ${typeof req.body === "string" ? req.body : JSON.stringify(req.body)} ${JSON.stringify(req.headers ?? {})}`;
};

/**
 * What is wrong with an answer, if anything: the GraphQL-over-HTTP shape, no internal failure, the
 * status its errors name, and nothing of the other tenant's (`foreign`) the request did not send.
 */
function judge(
  res: { status: number; text: string; body: any },
  req: FuzzRequest,
  meta: Meta | undefined,
  foreign: readonly string[],
  secrets: readonly string[],
): string | undefined {
  for (const s of secrets) if (res.text.includes(s)) return `a credential secret in the answer (${s})`;
  const b = res.body;
  // sendAll reports a 5xx, and a 4xx without GraphQL's error body.
  if (res.status >= 500 || (res.status >= 400 && !isGraphqlErrorBody(b))) return undefined;
  if (!b || typeof b !== "object" || Array.isArray(b))
    return `not a GraphQL response object: ${res.text.slice(0, 200)}`;
  const extra = Object.keys(b).filter((k) => !["data", "errors", "extensions"].includes(k));
  if (extra.length) return `members besides data/errors/extensions: ${extra.join(", ")}`;
  if (b.errors !== undefined) {
    if (!Array.isArray(b.errors) || b.errors.length === 0) return "errors is not a non-empty list";
    for (const e of b.errors) {
      const x = e?.extensions;
      if (
        typeof e?.message !== "string" ||
        typeof x?.code !== "string" ||
        !x.code ||
        typeof x.status !== "number"
      )
        return `an error without message, extensions.code or a numeric extensions.status: ${JSON.stringify(e).slice(0, 200)}`;
      if (x.status >= 500)
        return `an error entry ${x.code} ${x.status}${e.path ? ` at ${e.path.join(".")}` : ""}: ${e.message.slice(0, 150)}`;
      if (INTERNAL_TEXT.test(e.message))
        return `an internal failure in a message: ${e.message.slice(0, 150)}`;
    }
  }
  const hasData = b.data !== null && b.data !== undefined;
  if (res.status === 200) {
    if (!hasData || typeof b.data !== "object" || Array.isArray(b.data)) return "200 without data";
  } else {
    if (hasData) return `${res.status} with data`;
    if (!Array.isArray(b.errors)) return `${res.status} without errors`;
    const statuses = [...new Set(b.errors.map((e: any) => e.extensions.status))];
    const expected = statuses.length === 1 ? statuses[0] : 400;
    if (res.status !== expected) return `HTTP ${res.status}, but the errors name ${statuses.join(", ")}`;
  }
  if (meta?.bomb && res.status === 200)
    return `an alias bomb over the cost limit ran (${/\bneg: /.test(String(req.body)) ? "with" : "without"} a negative first)`;
  if (meta?.refuse && res.status < 400) return `accepted (${res.status})`;
  const sent = sentText(req);
  const data = hasData ? JSON.stringify(b.data) : "";
  for (const marker of foreign) {
    if (data.includes(marker)) return `tenant A's ${marker} in tenant B's data`;
    if (res.text.includes(marker) && !sent.includes(marker))
      return `tenant A's ${marker} in tenant B's answer, not sent by B`;
  }
  return undefined;
}

/** Every cursor in `data` (edges' cursors, pageInfo's start and end). */
function cursorsIn(data: unknown, out: string[]): void {
  if (Array.isArray(data)) for (const x of data) cursorsIn(x, out);
  else if (data && typeof data === "object") {
    for (const [k, v] of Object.entries(data)) {
      if (typeof v === "string" && /^(cursor|startCursor|endCursor)$/.test(k) && v) out.push(v);
      else cursorsIn(v, out);
    }
  }
}

const describeReq = (req: FuzzRequest) =>
  `${req.method} ${req.path.slice(0, 300)} ${typeof req.body === "string" ? req.body.slice(0, 400) : ""} ${JSON.stringify(req.headers ?? {}).slice(0, 100)}`;

/** POSTs `query` as `token`; the parsed answer. */
async function graphql(token: string | undefined, query: string, variables?: Record<string, unknown>) {
  const res = await sys.api("POST", "/graphql", {
    token,
    body: { query, ...(variables ? { variables } : {}) },
  });
  return { status: res.status, body: res.body as any, text: res.text };
}

// --- the fuzz -------------------------------------------------------------------------------------

describe(`fuzzing /graphql (seeds ${SEEDS.join(", ")})`, () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: ${REQUESTS} generated documents and broken requests as tenant B with tenant A's ids: no 5xx, GraphQL's shape, nothing of A's`, async () => {
      const alpha = await seedTenant(`fuzz-graphql-alpha-${seed}`, `ALPHA${seed}`);
      const bravo = await seedTenant(`fuzz-graphql-bravo-${seed}`, `BRAVO${seed}`);
      // B's own category for the check afterwards: the fuzz never learns its id or identifier.
      const kept = (
        await sys.as(bravo.token)("POST", "/api/categories", {
          tenantCategoryId: `KEPT${seed}`,
          nameLocalized: { en_US: "Kept" },
          customAttributes: { kept: true },
        })
      ).body;
      const reader = await sys.token(`fuzz-graphql-bravo-${seed}`, {
        permissions: ["PICKJOB_READ", "CATEGORY_READ", "FACILITY_READ"],
      });
      // A's cursors: handed to B as if they were B's.
      const alphaCursors: string[] = [];
      for (const q of [
        "{ categories(first: 1) { edges { cursor } pageInfo { endCursor } } }",
        "{ pickJobs(first: 1) { edges { cursor } } facilities(first: 1) { pageInfo { endCursor } } }",
      ])
        cursorsIn((await graphql(alpha.token, q)).body?.data, alphaCursors);
      expect(alphaCursors.length, "tenant A's cursors").toBeGreaterThan(0);

      const pools: Pools = {
        foreignIds: alpha.ids,
        foreignUrns: [
          `urn:fft:facility:tenantFacilityId:${alpha.label}FAC`,
          `urn:fft:category:tenantCategoryId:${alpha.label}CAT`,
          `urn:fft:facilitygroup:tenantFacilityGroupId:${alpha.label}GRP`,
          `urn:fft:facility:tenantFacilityId:${alpha.facility.id}`,
        ],
        ownIds: bravo.ids,
        ownByField: {
          pickJob: bravo.pickJob.id,
          pickRun: bravo.pickRun.id,
          loadUnit: bravo.loadUnit.id,
          stack: bravo.stack.id,
          carrier: bravo.carrier.id,
          itemReturnJob: bravo.returnJob.id,
          facility: bravo.facility.id,
          facilityGroup: bravo.group.id,
          category: bravo.category.id,
          operativeContainerType: bravo.operativeContainerType.id,
          cancelationReason: bravo.cancelationReason.id,
          rerouteDescription: bravo.rerouteDescription.id,
          subscription: bravo.subscription.id,
          deadLetters: bravo.subscription.id,
          notificationCenterConfig: bravo.facility.id,
        },
        ownUrns: [
          `urn:fft:facility:tenantFacilityId:${bravo.label}FAC`,
          `urn:fft:category:tenantCategoryId:${bravo.label}CAT`,
          `urn:fft:facilitygroup:tenantFacilityGroupId:${bravo.label}GRP`,
        ],
        cursors: [...alphaCursors],
      };
      const foreign = [...alpha.ids, ...alpha.names];
      const secrets = [...alpha.secrets, ...bravo.secrets, "whsec_"];
      // Tenant A's values come from the pools only (weird values may be stored, then read back as B).
      const f = fuzz([], { seed });
      const gen = generator(f, pools, reader);
      const meta = new WeakMap<FuzzRequest, Meta>();
      const kinds: Record<string, number> = {};
      const answered = new Set<string>();
      /** Relationship fields answered with an entity. */
      const related = new Set<string>();
      const request = (): FuzzRequest => {
        const { req, meta: m } = gen.request();
        meta.set(req, m);
        kinds[m.kind] = (kinds[m.kind] ?? 0) + 1;
        return req;
      };
      const check = (res: { status: number; text: string; body: any }, req: FuzzRequest) => {
        const fault = judge(res, req, meta.get(req), foreign, secrets);
        if (res.status === 200 && res.body?.data) {
          for (const m of res.text.matchAll(
            /"(facility|facilities|loadUnits|stack|configuration|originFacilities|pickJobs)":[[{]"/g,
          ))
            related.add(m[1]!);
          for (const [k, v] of Object.entries(res.body.data))
            if (v !== null && (k in QUERY.getFields() || k in MUTATION.getFields())) answered.add(k);
          const found: string[] = [];
          cursorsIn(res.body.data, found);
          pools.cursors.push(...found.filter((c) => !pools.cursors.includes(c)).slice(0, 5));
          pools.cursors.splice(0, Math.max(0, pools.cursors.length - 40));
        }
        return fault && `${fault}; request ${describeReq(req)}`;
      };
      const opts = { isErrorBody: isGraphqlErrorBody, timeoutMs: 10_000 };
      const started = Date.now();
      const classes = await fuzzRequests(sys, bravo.token, f, REQUESTS, request, check, opts);

      // Without a token: always a GraphQL-shaped 401, whatever else is wrong. Each part of the test
      // is a property of its own, on a seed of its own (the same seed would draw the same values).
      await fuzzRequests(
        sys,
        "",
        f,
        NO_TOKEN_REQUESTS,
        () => {
          const { req } = gen.request();
          delete req.headers?.authorization;
          return req;
        },
        (res, req) => {
          const fault = judge(res, req, { kind: "no token", refuse: true }, foreign, secrets);
          if (fault) return `${fault}; request ${describeReq(req)}`;
          // Over-long bodies and request lines, and targets that are not UTF-8, are refused before authentication.
          const code = res.body?.errors?.[0]?.extensions?.code;
          const before = [413, 431].includes(res.status) || /^INVALID_(ENCODING|CHARACTER)$/.test(code);
          return res.status === 401 || before
            ? undefined
            : `${res.status} without a token; ${describeReq(req)}`;
        },
        { ...opts, seed: seed + 1_000_000 },
      );

      // Bytes that are not UTF-8, in JSON bodies (a 400) and in application/graphql ones (a 415).
      await fuzzProperty(
        f,
        RAW_REQUESTS,
        async () => {
          const doc = gen.document();
          const graphqlBody = f.r() < 0.5;
          const text = graphqlBody ? doc.query : jsonText({ query: doc.query });
          const bytes = withInvalidBytes(text, f);
          const head = {
            host: "127.0.0.1",
            authorization: `Bearer ${bravo.token}`,
            "content-type": graphqlBody ? "application/graphql" : "application/json",
            "content-length": String(bytes.length),
          };
          const res = await rawRequest(sys.baseUrl, message("POST", "/graphql", head, bytes));
          const req = { method: "POST", path: "/graphql", body: bytes.toString("latin1"), headers: head };
          const fault =
            res.status >= 500
              ? `${res.status} ${res.body.slice(0, 200)}`
              : res.status >= 400 && !isGraphqlErrorBody(res.json)
                ? `without GraphQL's error body: ${res.body.slice(0, 200)}`
                : judge(
                    { status: res.status, text: res.body, body: res.json },
                    req,
                    { kind: "bytes" },
                    foreign,
                    secrets,
                  );
          // JSON: the strict parser's 400; application/graphql is not taken at all (415).
          const expected = graphqlBody ? 415 : 400;
          if (fault)
            throw new Error(
              `not UTF-8 (${head["content-type"]}) -> ${res.status} ${fault}; ${describeReq(req)}`,
            );
          if (res.status !== expected)
            throw new Error(
              `a body that is not UTF-8 (${head["content-type"]}) answered ${res.status}: ${res.body.slice(0, 200)}; ${describeReq(req)}`,
            );
        },
        seed + 2_000_000,
      );

      console.log(
        `graphql seed ${seed}: ${JSON.stringify(classes)} in ${Date.now() - started} ms; kinds ${JSON.stringify(kinds)}; data for ${[...answered].sort().join(", ")}; relationships ${[...related].sort().join(", ")}`,
      );
      expect(classes["2xx"] ?? 0, `seed ${seed}`).toBeGreaterThan(REQUESTS / 10);
      expect(classes["4xx"] ?? 0, `seed ${seed}`).toBeGreaterThan(REQUESTS / 10);

      // Afterwards: B's own category, by id and by URN, answers as REST has it.
      const rest = (await sys.as(bravo.token)("GET", `/api/categories/${kept.id}`)).body;
      const selectKept = "{ id tenantCategoryId nameLocalized customAttributes version }";
      for (const id of [kept.id, `urn:fft:category:tenantCategoryId:KEPT${seed}`]) {
        const one = await graphql(bravo.token, `query($id: ID!) { category(id: $id) ${selectKept} }`, { id });
        expect(one.status, one.text).toBe(200);
        expect(one.body).toEqual({
          data: {
            category: {
              id: rest.id,
              tenantCategoryId: rest.tenantCategoryId,
              nameLocalized: rest.nameLocalized,
              customAttributes: rest.customAttributes,
              version: rest.version,
            },
          },
        });
      }
      // B's pick job with its relationships; A's data untouched by everything B sent.
      const job = await graphql(
        bravo.token,
        `query($id: ID!) { pickJob(id: $id) { id facility { id } loadUnits { id stack { id } } } }`,
        { id: bravo.pickJob.id },
      );
      expect(job.body, job.text).toEqual({
        data: {
          pickJob: {
            id: bravo.pickJob.id,
            facility: { id: bravo.facility.id },
            loadUnits: [{ id: bravo.loadUnit.id, stack: { id: bravo.stack.id } }],
          },
        },
      });
      const mine = await graphql(
        alpha.token,
        `query($c: ID!, $p: ID!, $r: ID!) { category(id: $c) { id version nameLocalized } pickJob(id: $p) { id version status } pickRun(id: $r) { id version } }`,
        { c: alpha.category.id, p: alpha.pickJob.id, r: alpha.pickRun.id },
      );
      expect(mine.body, mine.text).toEqual({
        data: {
          category: {
            id: alpha.category.id,
            version: alpha.category.version,
            nameLocalized: alpha.category.nameLocalized,
          },
          pickJob: { id: alpha.pickJob.id, version: alpha.pickJob.version, status: alpha.pickJob.status },
          pickRun: { id: alpha.pickRun.id, version: alpha.pickRun.version },
        },
      });
    });
  }

  it("a body that is not JSON gets GraphQL's error body: a 400 MALFORMED_JSON, not REST's array", async () => {
    const token = await sys.token("fuzz-graphql-malformed");
    for (const body of ["{", '{"query":', "[1,", "\u0000"]) {
      const res = await sys.api("POST", "/graphql", {
        token,
        body,
        headers: { "content-type": "application/json" },
      });
      expect([res.status, res.body], res.text).toEqual([
        400,
        {
          data: null,
          errors: [
            {
              message: "The body is not valid JSON.",
              extensions: { code: "MALFORMED_JSON", kind: "INVALID", status: 400, summary: "Invalid input." },
            },
          ],
        },
      ]);
    }
  });

  it("tenant B cannot tell tenant A's ids from ids that do not exist (every root field that takes one)", async () => {
    const alpha = await seedTenant("fuzz-graphql-oracle-alpha", "ORACLEA");
    const bravo = await seedTenant("fuzz-graphql-oracle-bravo", "ORACLEB");
    // Every root field with an ID argument, asked as B for each of A's ids and for an unknown one.
    const queries: string[] = [];
    for (const root of [QUERY, MUTATION]) {
      for (const field of Object.values(root.getFields())) {
        const idArg = field.args.find((a) => gql.getNamedType(a.type).name === "ID");
        if (!idArg) continue;
        const named = gql.getNamedType(field.type);
        const sel = gql.isObjectType(named) ? (named.getFields().id ? " { id }" : " { __typename }") : "";
        const extra =
          field.name === "replaceCategory"
            ? ', input: {nameLocalized: {en_US: "x"}, version: 1}'
            : field.name === "pickJobAction" || field.name === "pickRunAction"
              ? ", action: {name: START, version: 1}"
              : "";
        const kind = root === MUTATION ? "mutation" : "query";
        queries.push(`${kind}($id: ID!) { ${field.name}(${idArg.name}: $id${extra})${sel} }`);
      }
    }
    expect(queries.length).toBeGreaterThan(15);
    const theirIds = [
      alpha.facility.id,
      alpha.pickJob.id,
      alpha.pickJob.pickLineItems[0].id,
      alpha.pickRun.id,
      alpha.category.id,
      alpha.stack.id,
      alpha.loadUnit.id,
      alpha.carrier.id,
      alpha.group.id,
      alpha.returnJob.id,
      alpha.cancelationReason.id,
      alpha.rerouteDescription.id,
      alpha.subscription.id,
      alpha.operativeContainerType.id,
      `urn:fft:facility:tenantFacilityId:${alpha.label}FAC`,
      `urn:fft:category:tenantCategoryId:${alpha.label}CAT`,
    ];
    const unknownLike = (id: string) =>
      id.startsWith("urn:") ? id.replace(alpha.label, "NOPE") : UNKNOWN_ID;
    const differences: string[] = [];
    for (const query of queries) {
      for (const id of theirIds) {
        const theirs = await graphql(bravo.token, query, { id });
        const none = await graphql(bravo.token, query, { id: unknownLike(id) });
        const a = `${theirs.status} ${theirs.text.replaceAll(id, "<ID>")}`;
        const b = `${none.status} ${none.text.replaceAll(unknownLike(id), "<ID>")}`;
        if (a !== b)
          differences.push(`${query} with A's ${id}: ${a.slice(0, 300)} | unknown: ${b.slice(0, 300)}`);
      }
    }
    expect(differences).toEqual([]);
    // Nothing of A's changed (the mutations above ran against A's ids as B).
    const after = await graphql(
      alpha.token,
      `query($c: ID!) { category(id: $c) { id version } pickJob(id: "${alpha.pickJob.id}") { version } pickRun(id: "${alpha.pickRun.id}") { version } }`,
      { c: alpha.category.id },
    );
    expect(after.body, after.text).toEqual({
      data: {
        category: { id: alpha.category.id, version: alpha.category.version },
        pickJob: { version: alpha.pickJob.version },
        pickRun: { version: alpha.pickRun.version },
      },
    });
  });
});

// --- what the fuzz found, pinned (each with its minimal request) ----------------------------------

describe("/graphql: what the fuzz found", () => {
  let token: string;
  beforeAll(async () => {
    token = await sys.token("fuzz-graphql-found");
  });
  const get = async (qs: string) => {
    const res = await sys.api("GET", `/graphql?${qs}`, { token });
    return { status: res.status, body: res.body as any, text: res.text };
  };
  const statuses = (body: any): number[] => (body?.errors ?? []).map((e: any) => e.extensions?.status);

  it("a variable value of the wrong type is a 400 (its coercion error), not a 500", async () => {
    // The coercion error (a GraphQLError) wraps another GraphQLError (the scalar's): formatError
    // takes it for a bug. A 400 before commit e2be885.
    const answers = [
      await graphql(token, "query($s: Boolean!) { __typename @skip(if: $s) }", { s: "yes" }),
      await graphql(token, "query($n: Int) { carriers(first: $n) { totalCount } }", { n: "x" }),
      await graphql(token, "query($id: ID!) { category(id: $id) { id } }", { id: true }),
      await graphql(token, "query($s: [AuditSort!]) { audits(sort: $s) { totalCount } }", { s: -1 }),
    ];
    expect(
      answers.map((a) => [a.status, statuses(a.body)]),
      answers.map((a) => a.text).join("\n"),
    ).toEqual(answers.map(() => [400, [400]]));
  });

  it("a GET whose operationName names no operation of the document is a 400, not a 500", async () => {
    // mercurius looks up the operation to refuse mutations over GET and reads .operation of null.
    const answers = [
      await get(`query=${encodeURIComponent("{ __typename }")}&operationName=Nope`),
      await get(`query=${encodeURIComponent("query A { __typename } query B { __typename }")}`),
      // An empty operationName names none: the document's one operation runs.
      await get(`query=${encodeURIComponent("{ __typename }")}&operationName=`),
    ];
    expect(
      answers.map((a) => [a.status, statuses(a.body)]),
      answers.map((a) => a.text).join("\n"),
    ).toEqual([
      [400, [400]],
      [400, [400]],
      [200, []],
    ]);
    expect(answers[2]!.body).toEqual({ data: { __typename: "Query" } });
  });

  it("GET variables that are JSON but no object are a 400 (as POST's are), not a 500", async () => {
    const q = encodeURIComponent("{ __typename }");
    const answers = [
      await get(`query=${q}&variables=${encodeURIComponent('"x"')}`),
      await get(`query=${q}&variables=1`),
      await get(`query=${q}&variables=${encodeURIComponent("[1]")}`),
    ];
    expect(
      answers.map((a) => [a.status, statuses(a.body)]),
      answers.map((a) => a.text).join("\n"),
    ).toEqual([
      [400, [400]],
      [400, [400]],
      [400, [400]],
    ]);
  });

  it("a negative first does not take a document under the cost limit", async () => {
    const costly = (i: number) => `a${i}: pickJobs(first: 250) { edges { node { id facility { id } } } }`;
    const aliases = Array.from({ length: 70 }, (_, i) => costly(i)).join(" ");
    const over = await graphql(token, `{ ${aliases} }`);
    expect(over.body.errors?.[0]?.extensions?.code, over.text).toBe("QUERY_TOO_COMPLEX");
    const bypass = await graphql(
      token,
      `{ neg: facilities(first: -2000000000) { edges { node { id } } } ${aliases} }`,
    );
    expect([bypass.status, bypass.body.errors?.[0]?.extensions?.code], bypass.text.slice(0, 300)).toEqual([
      400,
      "QUERY_TOO_COMPLEX",
    ]);
  });

  it("deeply nested input values are a 400 (as REST's NESTING_TOO_DEEP), never INTERNAL or a stack overflow", async () => {
    const deepFilter = (d: number) => `${"{and: [".repeat(d)}{id: {eq: "x"}}${"]}".repeat(d)}`;
    const deepObject = (d: number) => `${"{a: ".repeat(d)}1${"}".repeat(d)}`;
    const answers = [
      await graphql(token, `{ categories(filter: ${deepFilter(100)}) { totalCount } }`),
      await graphql(
        token,
        `mutation { createCategory(input: {nameLocalized: {en_US: "x"}, customAttributes: ${deepObject(100)}}) { id } }`,
      ),
      await graphql(
        token,
        `mutation { createCategory(input: {nameLocalized: {en_US: "x"}, customAttributes: ${deepObject(2000)}}) { id } }`,
      ),
      await graphql(
        token,
        `{ stacks(facilityRefs: ${"[".repeat(5000)}"a"${"]".repeat(5000)}) { totalCount } }`,
      ),
    ];
    expect(
      answers.map((a) => ({
        internal: (a.body?.errors ?? []).some(
          (e: any) => e.extensions?.status >= 500 || INTERNAL_TEXT.test(String(e.message)),
        ),
        refused: (a.body?.errors ?? []).some((e: any) => e.extensions?.status === 400),
      })),
      answers.map((a) => `${a.status} ${a.text.slice(0, 250)}`).join("\n"),
    ).toEqual(answers.map(() => ({ internal: false, refused: true })));
  });

  it("JSON scalar literals are held to the body rules: no number beyond range, none rounded, no __proto__ key", async () => {
    // As JSON (a variable) each of these is a 400 at the door (INVALID_NUMBER, INVALID_KEY).
    const create = (attributes: string) =>
      graphql(
        token,
        `mutation { createCategory(input: {nameLocalized: {en_US: "x"}, customAttributes: ${attributes}}) { id customAttributes } }`,
      );
    const answers = [
      await create("{k: 1e400}"),
      await create("{k: 9007199254740993}"),
      await create("{__proto__: {polluted: true}}"),
    ];
    expect(
      answers.map((a) => [a.body?.data?.createCategory ?? null, statuses(a.body)]),
      answers.map((a) => a.text).join("\n"),
    ).toEqual([
      [null, [400]],
      [null, [400]],
      [null, [400]],
    ]);
  });

  it("a variable inside a JSON scalar literal stands for its value (not dropped)", async () => {
    const res = await graphql(
      token,
      "mutation($name: String, $v: Int) { createCategory(input: {nameLocalized: {en_US: $name}, customAttributes: {v: $v}}) { nameLocalized customAttributes } }",
      { name: "Fuzz", v: 7 },
    );
    expect(res.body, res.text).toEqual({
      data: { createCategory: { nameLocalized: { en_US: "Fuzz" }, customAttributes: { v: 7 } } },
    });
  });

  it("an application/graphql body (here not UTF-8) is refused with 415, never stored with U+FFFD", async () => {
    const body = Buffer.concat([
      Buffer.from('mutation { createCategory(input: {nameLocalized: {en_US: "a'),
      Buffer.from([0xff]),
      Buffer.from('b"}}) { id nameLocalized } }'),
    ]);
    const res = await rawRequest(
      sys.baseUrl,
      message(
        "POST",
        "/graphql",
        {
          host: "127.0.0.1",
          authorization: `Bearer ${token}`,
          "content-type": "application/graphql",
          "content-length": String(body.length),
        },
        body,
      ),
    );
    expect([res.status, res.json?.errors?.[0]?.extensions?.code], res.body).toEqual([
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    ]);
  });

  it("a connection's node is the entity its by-id field answers (carriers' nodes were list summaries)", async () => {
    // Found as INTERNAL "Cannot return null for non-nullable field Carrier.defaultParcelLengthInCm".
    const t = await seedTenant("fuzz-graphql-found-nodes", "NODES");
    const differences: string[] = [];
    for (const [name, field] of Object.entries(QUERY.getFields())) {
      const connection = gql.getNamedType(field.type);
      if (!gql.isObjectType(connection) || !connection.name.endsWith("Connection")) continue;
      const node = connection.name.replace(/Connection$/, "");
      const byId = Object.values(QUERY.getFields()).find(
        (x) => gql.getNamedType(x.type).name === node && x.args.some((a) => a.name === "id"),
      );
      const type = schema.getType(node);
      if (!byId || !gql.isObjectType(type)) continue;
      const leaves = Object.values(type.getFields())
        .filter((x) => gql.isLeafType(gql.getNamedType(x.type)))
        .map((x) => x.name)
        .join(" ");
      const list = await graphql(t.token, `{ ${name} { edges { node { ${leaves} } } } }`);
      const nodes = (list.body?.data?.[name]?.edges ?? []).map((e: any) => e?.node);
      if (list.body?.errors || nodes.length === 0) {
        differences.push(`${name}: ${list.text.slice(0, 300)}`);
        continue;
      }
      for (const n of nodes) {
        const one = await graphql(t.token, `query($id: ID!) { ${byId.name}(id: $id) { ${leaves} } }`, {
          id: n.id,
        });
        const expected = one.body?.data?.[byId.name];
        const differing = Object.keys(expected ?? {}).filter(
          (k) => JSON.stringify(n[k]) !== JSON.stringify(expected[k]),
        );
        if (differing.length)
          differences.push(`${name} node ${n.id} differs from ${byId.name} in ${differing.join(", ")}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it("a GET whose request line is too long gets GraphQL's error body (431), not REST's array", async () => {
    const res = await get(`query=${encodeURIComponent(`{ ${"__typename ".repeat(2000)}}`)}`);
    expect(res.status).toBe(431);
    expect(isGraphqlErrorBody(res.body), res.text).toBe(true);
    expect(res.body.errors[0].extensions).toMatchObject({ code: "HEADERS_TOO_LARGE", status: 431 });
  });
});
