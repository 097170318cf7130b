import { readFileSync } from "node:fs";
import path from "node:path";
import { EVENT_KINDS } from "@fop/contracts/event-kinds";
import { expect, it } from "vitest";

const PRODUCERS = new Set<string>(EVENT_KINDS.map((k) => k.producer));

it("the README's event kind table is the catalogue (contracts/src/event-kinds.ts), row for row", () => {
  const readme = readFileSync(path.join(import.meta.dirname, "../README.md"), "utf8");
  const rows = readme
    .split("\n")
    .filter((l) => /^\| `[A-Z_]+` \|/.test(l))
    .map((l) => l.split(" | ").map((c) => c.replace(/^\| |`| \|$/g, "")))
    .filter((cells) => PRODUCERS.has(cells[1] ?? "")); // not the environment table
  expect(rows.map(([kind, producer]) => `${kind} ${producer}`)).toEqual(
    EVENT_KINDS.map((k) => `${k.kind} ${k.producer}`),
  );
});
