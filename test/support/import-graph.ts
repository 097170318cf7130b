/**
 * The import graph of the repository's TypeScript, and its cycles.
 *
 * Imports are read with the TypeScript compiler's own scanner (`ts.preProcessFile`: static imports,
 * `import type`, `export ... from`, `import()`), and resolved with its module resolution under the
 * repository's compiler options (`moduleResolution: nodenext`, the `source` condition): the same
 * resolution `npm run typecheck` uses, so `./x.ts` specifiers and the workspace packages' `exports`
 * (`@fop/kit/events/outbox` -> services/kit/src/events/outbox.ts) resolve as they do there. Symlinks
 * (node_modules/@fop/*) are followed to the file in the tree. Type-only imports count: a cycle of
 * types is still two modules that cannot be understood, moved or split one without the other.
 *
 * Written on the compiler API rather than taken from madge or dependency-cruiser: typescript is
 * already a dependency, and its resolver is by definition the one that agrees with the type check.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Module -> the modules it imports (absolute paths, both within the scanned tree). */
export type ImportGraph = Map<string, Set<string>>;

const SKIP_DIRS = new Set(["node_modules", "dist", "gen", ".data", ".git"]);

/** The .ts files under `roots` (directories or files), skipping node_modules, dist, gen and .data. */
export function tsFiles(roots: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      if (SKIP_DIRS.has(path.basename(p))) return;
      for (const e of readdirSync(p).sort()) walk(path.join(p, e));
    } else if (/\.(c|m)?ts$/.test(p) && !p.endsWith(".d.ts")) {
      out.push(realpathSync(p));
    }
  };
  for (const r of roots) walk(path.resolve(r));
  return out;
}

/** The compiler options of `tsconfig` (the repository's root one by default). */
export function compilerOptions(tsconfig: string): ts.CompilerOptions {
  const read = ts.readConfigFile(tsconfig, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(tsconfig)).options;
}

/**
 * The graph of `files`: an edge for every import of one of them that resolves to another of them
 * (imports of npm packages and of files outside `files` are left out).
 */
export function importGraph(files: string[], options: ts.CompilerOptions): ImportGraph {
  const inTree = new Set(files);
  const host: ts.ModuleResolutionHost = {
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    realpath: (p) => realpathSync(p),
  };
  const cache = ts.createModuleResolutionCache(process.cwd(), (f) => f, options);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const edges = new Set<string>();
    const info = ts.preProcessFile(ts.sys.readFile(file) ?? "", true, true);
    for (const { fileName: spec } of info.importedFiles) {
      // The module kind decides which `exports` condition applies (import vs require): all ESM here.
      const resolved = ts.resolveModuleName(spec, file, options, host, cache, undefined, ts.ModuleKind.ESNext)
        .resolvedModule?.resolvedFileName;
      if (!resolved) continue;
      const target = realpathSync(resolved);
      if (inTree.has(target) && target !== file) edges.add(target);
      else if (target === file) edges.add(file); // a module importing itself is a cycle too
    }
    graph.set(file, edges);
  }
  return graph;
}

/** Modules that import each other: one cycle through them, and all of them. */
export interface Tangle {
  /** `[a, b, ..., a]`: the shortest way from the tangle's first module (sorted) back to itself. */
  cycle: string[];
  /** Every module of the tangle (a strongly connected component of the graph), sorted. */
  modules: string[];
}

/**
 * Each strongly connected component of more than one module (or a module that imports itself), with
 * one cycle through it. Components are found with Tarjan's algorithm; the result is sorted.
 */
export function findCycles(graph: ImportGraph): Tangle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  // Iterative Tarjan: the graph has a few thousand modules, deep chains would overflow the stack.
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { v: string; it: Iterator<string> }[] = [];
    const visit = (v: string) => {
      index.set(v, next);
      low.set(v, next);
      next++;
      stack.push(v);
      onStack.add(v);
      work.push({ v, it: [...(graph.get(v) ?? [])].sort()[Symbol.iterator]() });
    };
    visit(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const step = top.it.next();
      if (!step.done) {
        const w = step.value;
        if (!index.has(w)) visit(w);
        else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) === index.get(top.v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== top.v);
        components.push(component);
      }
    }
  }
  const tangles: Tangle[] = [];
  for (const component of components) {
    const members = new Set(component);
    const start = [...component].sort()[0]!;
    if (component.length === 1 && !graph.get(start)?.has(start)) continue;
    // Shortest path start -> ... -> start inside the component (breadth first).
    const from = new Map<string, string>();
    const queue = [start];
    let end: string | undefined;
    while (queue.length && end === undefined) {
      const v = queue.shift()!;
      for (const w of [...(graph.get(v) ?? [])].sort()) {
        if (!members.has(w)) continue;
        if (w === start) {
          end = v;
          break;
        }
        if (!from.has(w)) {
          from.set(w, v);
          queue.push(w);
        }
      }
    }
    const cycle = [start];
    for (let v = end!; v !== start; v = from.get(v)!) cycle.splice(1, 0, v);
    cycle.push(start);
    tangles.push({ cycle, modules: [...component].sort() });
  }
  return tangles.sort((a, b) => a.cycle[0]!.localeCompare(b.cycle[0]!));
}

/**
 * `a.ts -> b.ts -> a.ts`, the paths relative to `root`; when more modules are tangled than the
 * cycle shows, `(and c.ts, d.ts in the same tangle)`: breaking this cycle alone will not untangle them.
 */
export function describeTangle({ cycle, modules }: Tangle, root: string): string {
  const rel = (f: string) => path.relative(root, f);
  const more = modules.filter((m) => !cycle.includes(m));
  return `${cycle.map(rel).join(" -> ")}${more.length ? ` (and ${more.map(rel).join(", ")} in the same tangle)` : ""}`;
}
