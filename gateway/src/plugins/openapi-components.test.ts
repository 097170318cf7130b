import { describe, expect, it } from "vitest";
import { withNamedComponents } from "./openapi-components.ts";

const ref = (name: string) => `#/components/schemas/${name}`;
const Line = { title: "Line", type: "object", properties: { sku: { type: "string" } } };
const Job = (line: object = Line, extra: object = {}) => ({
  title: "Job",
  type: "object",
  properties: { lines: { type: "array", items: line }, ...extra },
});

/** A document with `schema` as POST /jobs's request body and `response` as its 201. */
const doc = (body: object, response: object = body, components: Record<string, object> = {}) => ({
  openapi: "3.1.0",
  components: { schemas: components },
  paths: {
    "/jobs": {
      post: {
        requestBody: { content: { "application/json": { schema: body } } },
        responses: {
          "201": { description: "Created", content: { "application/json": { schema: response } } },
        },
      },
    },
  },
});
const post = (d: ReturnType<typeof doc>) => d.paths["/jobs"].post as Record<string, any>;

describe("withNamedComponents", () => {
  it("puts each titled schema into components once and refers to it where it was, nested ones too", () => {
    const input = doc(Job());
    const out = withNamedComponents(input);
    expect(post(out).requestBody.content["application/json"].schema).toEqual({ $ref: ref("Job") });
    expect(post(out).responses["201"].content["application/json"].schema).toEqual({ $ref: ref("Job") });
    expect(out.components.schemas).toEqual({
      Job: {
        title: "Job",
        type: "object",
        properties: { lines: { type: "array", items: { $ref: ref("Line") } } },
      },
      Line,
    });
    expect(post(input).requestBody.content["application/json"].schema).toEqual(Job()); // not changed
  });

  it("keeps the annotations all occurrences share in the component, the others beside the $ref", () => {
    const job = Job(
      { ...Line, description: "A line" },
      { main: { ...Line, description: "The main line", deprecated: true } },
    );
    const out = withNamedComponents(doc(job, { ...job, description: "Created" }));
    // Line's descriptions differ: each stays where it was; Job's response description is the response's.
    expect(out.components.schemas.Line).toEqual(Line);
    expect((out.components.schemas as any).Job.properties.main).toEqual({
      $ref: ref("Line"),
      description: "The main line",
      deprecated: true,
    });
    expect(post(out).responses["201"].content["application/json"].schema).toEqual({ $ref: ref("Job") });
  });

  it.each([
    [
      "a different schema under the same title",
      doc(Job(), Job({ ...Line, required: ["sku"] })),
      /"Line" at POST \/jobs request body .* and, different, at POST \/jobs response 201/,
    ],
    [
      "a title that is not a component name",
      doc({ ...Line, title: "Line (short)" }),
      /"Line \(short\)" .* is not a component name/,
    ],
  ])("fails on %s, naming where", (_, input, message) => {
    expect(() => withNamedComponents(input)).toThrow(message);
  });

  it("names the schemas hoisted for their $id (def-N) after their title, in every $ref", () => {
    const query = {
      title: "JobQuery",
      type: "object",
      properties: { or: { type: "array", items: { $ref: ref("def-0") } } },
    };
    const out = withNamedComponents(
      doc({ title: "JobSearch", type: "object", properties: { query: { $ref: ref("def-0") } } }, Job(), {
        "def-0": query,
      }),
    );
    expect(out.components.schemas).toMatchObject({
      JobQuery: { properties: { or: { items: { $ref: ref("JobQuery") } } } },
      JobSearch: { properties: { query: { $ref: ref("JobQuery") } } },
    });
    expect(out.components.schemas).not.toHaveProperty("def-0");
  });

  it("maps a discriminator's values to its variants' components", () => {
    const variant = (name: string) => ({
      title: `${name}Action`,
      type: "object",
      properties: { name: { title: `${name}Enum`, type: "string", enum: [name] } },
    });
    const body = {
      type: "object",
      discriminator: { propertyName: "name" },
      oneOf: [variant("START"), variant("PICK")],
    };
    const out = withNamedComponents(doc(body, Job()));
    expect(post(out).requestBody.content["application/json"].schema.discriminator).toEqual({
      propertyName: "name",
      mapping: { START: ref("STARTAction"), PICK: ref("PICKAction") },
    });
  });
});
