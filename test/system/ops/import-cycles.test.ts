/**
 * No import cycles anywhere in the tree: the gateway, every service (kit included), contracts, the
 * launcher and the tests. A cycle fails the test, named module by module. Needs no running system:
 * the graph is read from the sources (support/import-graph.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  compilerOptions,
  describeTangle,
  findCycles,
  importGraph,
  tsFiles,
} from "../../support/import-graph.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const options = compilerOptions(path.join(root, "tsconfig.json"));
const at = (...p: string[]) => path.join(root, ...p);

describe("the import graph", () => {
  const files = tsFiles([
    at("gateway/src"),
    at("gateway/test"),
    at("services"),
    at("contracts/src"),
    at("deploy/local"),
    at("test"),
  ]);
  const graph = importGraph(files, options);

  it("has no cycle", () => {
    const cycles = findCycles(graph).map((c) => describeTangle(c, root));
    expect(cycles, `import cycles:\n  ${cycles.join("\n  ")}`).toEqual([]);
  });

  it("follows relative imports and the workspace packages' exports to the source files", () => {
    const edges = (file: string) => [...(graph.get(at(file)) ?? [])].map((f) => path.relative(root, f));
    // Without these the test above would pass on a graph with no edges.
    expect(files.length).toBeGreaterThan(300);
    expect(edges("deploy/local/src/db-setup.ts")).toEqual(
      expect.arrayContaining(["deploy/local/src/services.ts", "services/kit/src/db/orm.ts"]),
    );
    // `@fop/kit/events/outbox` through services/kit/package.json "exports" (the source condition).
    expect(edges("services/picking/src/service.ts")).toEqual(
      expect.arrayContaining(["services/kit/src/service.ts"]),
    );
  });
});

describe("findCycles", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "import-cycles-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };

  it("names each cycle, type-only and re-export edges included, and nothing acyclic", () => {
    write("a.ts", 'import { b } from "./b.ts";\nexport const a = b;\n');
    write("b.ts", 'import type { C } from "./sub/c.ts";\nexport const b = 1 as unknown as C;\n');
    write("sub/c.ts", 'export * from "../a.ts";\nexport type C = number;\n');
    write("d.ts", 'import { a } from "./a.ts";\nexport const d = () => import("./d.ts").then(() => a);\n');
    write("e.ts", 'import { d } from "./d.ts";\nexport const e = d;\n');
    write("f.ts", 'import { g } from "./g.ts";\nexport const f = 1;\nexport const h = g;\n');
    write("g.ts", 'export { f as g } from "./f.ts";\nexport { i } from "./i.ts";\n');
    write("i.ts", 'import type { g } from "./g.ts";\nexport const i: typeof g = 1;\n');
    const graph = importGraph(tsFiles([dir]), options);
    const cycles = findCycles(graph).map((c) => describeTangle(c, dir));
    expect(cycles).toEqual([
      "a.ts -> b.ts -> sub/c.ts -> a.ts",
      "d.ts -> d.ts",
      "f.ts -> g.ts -> f.ts (and i.ts in the same tangle)",
    ]);
  });
});
