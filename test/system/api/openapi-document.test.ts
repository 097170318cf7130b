/**
 * The OpenAPI document as a product (generated offline, as /api/openapi.json serves it): OpenAPI
 * 3.1 with servers, licence and contact; every request and response body a `$ref` to a named
 * component, named as the reference names it where the reference has the operation; and Redocly
 * CLI's recommended rules at 0 errors and 0 warnings (../.config/redocly.yaml switches off what does
 * not apply, each with its reason). The served document's size and a client generated from it:
 * openapi-client.test.ts.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { openApiDocument } from "@fop/gateway";
import { beforeAll, describe, expect, it } from "vitest";
import { referenceDocument, referenceMissing } from "../../support/reference.ts";

if (referenceMissing) console.warn(referenceMissing);

const METHODS = ["get", "put", "post", "patch", "delete"] as const;
const PREFIX = "#/components/schemas/";

type Media = Record<string, { schema?: Record<string, unknown> }>;
type Operation = {
  requestBody?: { content: Media };
  responses: Record<string, { content?: Media }>;
};
type Document = {
  openapi: string;
  info: Record<string, any>;
  servers: { url: string }[];
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

/** Where ours is named otherwise than the reference on purpose ("METHOD /path/{} body|status"), and why. */
const NAMED_OTHERWISE: Record<string, string> = {
  "PATCH /api/configurations/picking request":
    "PickingConfigurationsPatch: the PATCH body is closed and needs the version; the configuration it answers (PickingConfigurations) is neither",
};

/** "METHOD /path/{}": the operation with its path parameters' names set aside (theirs differ from ours). */
const key = (method: string, template: string) =>
  `${method.toUpperCase()} ${template.replace(/\{[^}]+\}/g, "{}")}`;

/** Every body of a document: "METHOD /path/{} request" or "... <status>" -> media type -> schema. */
function bodies(doc: Pick<Document, "paths">): [string, string, Record<string, unknown> | undefined][] {
  const out: [string, string, Record<string, unknown> | undefined][] = [];
  for (const [template, item] of Object.entries(doc.paths))
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
        out.push([`${key(m, template)} request`, type, media.schema]);
      for (const [status, res] of Object.entries(op.responses))
        for (const [type, media] of Object.entries(res.content ?? {}))
          out.push([`${key(m, template)} ${status}`, type, media.schema]);
    }
  return out;
}

describe("the OpenAPI document", () => {
  let doc: Document;
  beforeAll(async () => {
    doc = (await openApiDocument()) as Document;
  });

  it("is OpenAPI 3.1 with servers, licence and contact, and a 2xx answer on every operation", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "/", description: "The host serving this document" }]);
    expect(doc.info).toMatchObject({
      license: { identifier: "Apache-2.0" },
      contact: { name: expect.any(String) },
    });
    const without = Object.entries(doc.paths).flatMap(([p, item]) =>
      METHODS.filter((m) => item[m] && !Object.keys(item[m].responses).some((s) => s.startsWith("2"))).map(
        (m) => `${m} ${p}`,
      ),
    );
    expect(without).toEqual([]);
  });

  it("names the configured public URL (PUBLIC_URL) as its server", async () => {
    const served = (await openApiDocument("https://fop.example.com")) as Document;
    expect(served.servers).toEqual([
      { url: "https://fop.example.com", description: "This installation (PUBLIC_URL)" },
    ]);
  });

  it("has every request body and every response body (2xx and errors) as a $ref to a named component", () => {
    const all = bodies(doc);
    expect(all.length).toBeGreaterThan(1000);
    const inline = all
      .filter(
        ([, , schema]) => !(schema && Object.keys(schema).length === 1 && typeof schema.$ref === "string"),
      )
      .map(([at, type, schema]) => `${at} ${type}: ${JSON.stringify(schema)?.slice(0, 80)}`);
    expect(inline).toEqual([]);
    const unknown = all
      .map(([at, , schema]) => [at, String(schema?.$ref)])
      .filter(([, ref]) => !(ref?.startsWith(PREFIX) && doc.components.schemas[ref.slice(PREFIX.length)]))
      .map(([at, ref]) => `${at}: ${ref}`);
    expect(unknown).toEqual([]);
    const twoxx = all.filter(([at]) => / 2\d\d$/.test(at)).length;
    const errors = all.filter(([at]) => / [45]\d\d$/.test(at)).length;
    console.info(
      `bodies: ${all.length} (${all.length - twoxx - errors} request, ${twoxx} 2xx, ${errors} error), ${Object.keys(doc.components.schemas).length} components`,
    );
  });

  it.skipIf(Boolean(referenceMissing))(
    "names each body the reference names as the reference does (its operations, matched on method and path)",
    () => {
      const ours = new Map(bodies(doc).map(([at, type, s]) => [`${at} ${type}`, s?.$ref]));
      const differ: string[] = [];
      let compared = 0;
      for (const [at, type, schema] of bodies(referenceDocument() as unknown as Document)) {
        const theirs = schema?.$ref;
        if (typeof theirs !== "string" || !ours.has(`${at} ${type}`)) continue;
        compared++;
        const name = String(ours.get(`${at} ${type}`)).slice(PREFIX.length);
        if (name !== theirs.slice(PREFIX.length) && !NAMED_OTHERWISE[at])
          differ.push(`${at}: ours ${name}, the reference's ${theirs.slice(PREFIX.length)}`);
      }
      console.info(`body names: ${compared} compared with the reference's`);
      expect(compared).toBeGreaterThan(300);
      expect(differ).toEqual([]);
    },
  );

  it("passes Redocly CLI's lint (recommended rules) with 0 errors and 0 warnings", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "openapi-lint-"));
    try {
      const file = path.join(dir, "openapi.json");
      await writeFile(file, JSON.stringify(doc));
      const cli = createRequire(import.meta.url).resolve("@redocly/cli/bin/cli.js");
      const config = path.resolve(import.meta.dirname, "../../../.config/redocly.yaml");
      const run = await promisify(execFile)(
        process.execPath,
        [cli, "lint", file, `--config=${config}`, "--format=json"],
        {
          env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
          maxBuffer: 64 * 1024 * 1024,
        },
      ).catch((err: { stdout?: string; stderr?: string }) => err);
      const result = JSON.parse(String(run.stdout) || "{}") as {
        totals?: { errors: number; warnings: number };
        problems?: { ruleId: string; message: string; location: { pointer: string }[] }[];
      };
      const problems = (result.problems ?? []).map(
        (p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`,
      );
      expect(result.totals, String(run.stderr)).toEqual({ errors: 0, warnings: 0, ignored: 0 });
      expect(problems).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
