/**
 * The drift guard: no enumeration of the contracts is stated again in the gateway or a service.
 * Every TypeScript source under gateway/src and services/<svc>/src (tests, test helpers and
 * generated code left out) is parsed, and each set of string literals in it is compared with each
 * contracts enumeration (an exported `as const` array of strings):
 *   - an array of strings (`["OPEN", "CLOSED"]`, also inside `new Set([...])` or `StringEnum([...])`),
 *   - an array of TypeBox literals (`[Type.Literal("OPEN"), Type.Literal("CLOSED")]`),
 *   - a union of string literal types (`type S = "OPEN" | "CLOSED"`),
 *   - an SQL list inside a string or template (`status in ('OPEN', 'CLOSED')`).
 * A set equal to an enumeration, in any order, is a copy; so is a superset of one of three or more
 * values with at most two values more (a copy that drifted by a value). Subsets are not: a rule may
 * name some of the statuses. A failure names the file and line and the enumeration to import.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as contracts from "./index.ts";

const repo = path.resolve(import.meta.dirname, "../..");

/** Each exported array of strings of the contracts (NAME -> values). */
const enumerations = (): Map<string, readonly string[]> =>
  new Map(
    Object.entries(contracts).filter(
      (e): e is [string, readonly string[]] =>
        /^[A-Z][A-Z0-9_]*$/.test(e[0]) &&
        Array.isArray(e[1]) &&
        e[1].length >= 2 &&
        e[1].every((v: unknown) => typeof v === "string"),
    ),
  );

interface LiteralSet {
  line: number;
  values: string[];
}

const isLiteralCall = (e: ts.Expression): e is ts.CallExpression =>
  ts.isCallExpression(e) &&
  /(^|\.)Literal$/.test(e.expression.getText()) &&
  e.arguments.length >= 1 &&
  ts.isStringLiteral(e.arguments[0]!);

const SQL_LIST = /\bin\s*\(\s*('[^']*'(?:\s*,\s*'[^']*')+)\s*\)/gi;

/** The sets of string literals a TypeScript source states (see the file's head). */
function literalSets(fileName: string, text: string): LiteralSet[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const sets: LiteralSet[] = [];
  const add = (node: ts.Node, values: string[]) => {
    if (values.length >= 2) {
      sets.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, values });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isArrayLiteralExpression(node) && node.elements.length >= 2) {
      const elements = [...node.elements];
      if (elements.every((e) => ts.isStringLiteral(e)))
        add(
          node,
          elements.map((e) => e.text),
        );
      else if (elements.every((e) => isLiteralCall(e))) {
        add(
          node,
          elements.map((e) => ((e as ts.CallExpression).arguments[0] as ts.StringLiteral).text),
        );
      }
    } else if (
      ts.isUnionTypeNode(node) &&
      node.types.every((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal))
    ) {
      add(
        node,
        node.types.map((t) => ((t as ts.LiteralTypeNode).literal as ts.StringLiteral).text),
      );
    } else if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateExpression(node)
    ) {
      for (const m of node.getText(source).matchAll(SQL_LIST)) {
        add(
          node,
          m[1]!.split(",").map((v) => v.trim().slice(1, -1)),
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sets;
}

/** The enumeration `values` restate, if any (equal as sets, or a superset with at most two more). */
function restated(values: readonly string[], enums: Map<string, readonly string[]>): string | undefined {
  const set = new Set(values);
  for (const [name, e] of enums) {
    const covers = e.every((v) => set.has(v));
    if (!covers) continue;
    if (set.size === new Set(e).size) return name;
    if (e.length >= 3 && set.size - e.length <= 2) return name;
  }
  return undefined;
}

/** gateway/src and services/<svc>/src: every .ts file but tests, test helpers and generated code. */
function sources(): string[] {
  const roots = [
    path.join(repo, "gateway/src"),
    ...readdirSync(path.join(repo, "services"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.join(repo, "services", d.name, "src")),
  ];
  return roots.flatMap((root) =>
    readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter(
        (f) =>
          f.endsWith(".ts") &&
          !f.endsWith(".test.ts") &&
          !f.split(path.sep).some((part) => part === "gen" || part === "testing"),
      )
      .sort()
      .map((f) => path.join(root, f)),
  );
}

describe("no contracts enumeration is restated in the gateway or a service", () => {
  const enums = enumerations();

  it("finds the contracts' enumerations", () => {
    for (const name of [
      "PICK_JOB_STATUSES",
      "ITEM_RETURN_STATUSES",
      "WEEKDAYS",
      "PERMISSIONS",
      "SUPPORTED_LOCALES",
    ]) {
      expect(enums.has(name), name).toBe(true);
    }
  });

  it("recognises a copy in each form it looks for, and not a subset", () => {
    const copies = literalSets(
      "planted.ts",
      [
        'const a = ["SAMEDAY", "DELIVERY"];',
        'type W = "SUNDAY" | "MONDAY" | "TUESDAY" | "WEDNESDAY" | "THURSDAY" | "FRIDAY" | "SATURDAY";',
        'const b = Type.Union([Type.Literal("AVAILABLE"), Type.Literal("OBSOLETE")]);',
        "const q = `select 1 where status in ('OPEN', 'IN_PROGRESS', 'FINISHED', 'CANCELED', 'X')`;",
        'const ok = ["OPEN", "IN_PROGRESS", "PAUSED"];',
      ].join("\n"),
    ).map((s) => [s.line, restated(s.values, enums)]);
    expect(copies).toEqual([
      [1, "CARRIER_DELIVERY_TYPES"],
      [2, "WEEKDAYS"],
      [3, "LOAD_UNIT_STATUSES"],
      [4, "ITEM_RETURN_JOB_STATUSES"],
      [5, undefined],
    ]);
  });

  it("finds none in gateway/src and services/*/src", () => {
    const found: string[] = [];
    for (const file of sources()) {
      for (const { line, values } of literalSets(file, readFileSync(file, "utf8"))) {
        const name = restated(values, enums);
        if (name) {
          found.push(
            `${path.relative(repo, file)}:${line}: [${values.join(", ")}] restates ${name}: import it from @fop/contracts`,
          );
        }
      }
    }
    expect(found, found.join("\n")).toEqual([]);
  });
});
