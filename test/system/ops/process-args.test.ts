/**
 * Every place that writes out how a platform process starts says what PROCESS_NODE_ARGS
 * (services/kit/src/process-args.ts) says: the image's default command, the Kubernetes manifests'
 * commands, the packages' `start` scripts, and the bench's script (whose process runs the gateway)
 * its GC options. `npm start` and the tests' boot spawn with the list itself.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { GC_NODE_ARGS, PROCESS_NODE_ARGS } from "@fop/kit/process-args";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

const repo = path.resolve(import.meta.dirname, "../../..");
const read = (file: string) => readFileSync(path.join(repo, file), "utf8");
const MAIN = /^(gateway|services\/[a-z0-9-]+)\/src\/main\.ts$/;

interface Container {
  name: string;
  command?: string[];
}

/** Every container of the base manifests' workloads whose command runs a platform main module. */
function manifestCommands(): { where: string; command: string[] }[] {
  const dir = "deploy/k8s/base";
  const out: { where: string; command: string[] }[] = [];
  for (const file of readdirSync(path.join(repo, dir)).filter((f) => f.endsWith(".yaml"))) {
    for (const doc of parseAllDocuments(read(`${dir}/${file}`))) {
      const o = doc.toJS() as {
        kind?: string;
        spec?: { template?: { spec?: { containers?: Container[]; initContainers?: Container[] } } };
      } | null;
      const pod = o?.spec?.template?.spec;
      for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) {
        if (c.command?.some((arg) => MAIN.test(arg))) {
          out.push({ where: `${file}: ${o?.kind} container ${c.name}`, command: c.command });
        }
      }
    }
  }
  return out;
}

/** The `start` script of the gateway's and each service's package (kit has none). */
function startScripts(): { where: string; script: string | undefined }[] {
  const packages = [
    "gateway",
    ...readdirSync(path.join(repo, "services"))
      .filter((d) => d !== "kit")
      .map((d) => `services/${d}`),
  ];
  return packages.map((dir) => ({
    where: `${dir}/package.json`,
    script: (JSON.parse(read(`${dir}/package.json`)) as { scripts?: Record<string, string> }).scripts?.start,
  }));
}

describe("the platform's node options, written once (PROCESS_NODE_ARGS)", () => {
  it("hold the GC options between the source condition and the tracing import", () => {
    expect(PROCESS_NODE_ARGS[0]).toBe("--conditions=source");
    expect(PROCESS_NODE_ARGS).toEqual(expect.arrayContaining([...GC_NODE_ARGS]));
    expect(PROCESS_NODE_ARGS.slice(-2)).toEqual(["--import", "@fop/kit/otel-register"]);
    expect(GC_NODE_ARGS).toContain("--max-semi-space-size=16");
  });

  it("the image's default command is the gateway's with them", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(read("deploy/docker/Dockerfile"));
    expect(cmd, "a CMD line in exec form").not.toBeNull();
    expect(JSON.parse(cmd![1]!)).toEqual(["node", ...PROCESS_NODE_ARGS, "gateway/src/main.ts"]);
  });

  it("every Kubernetes container that runs the gateway or a service runs it with them", () => {
    const commands = manifestCommands();
    // The gateway and the seven services.
    expect(commands.length).toBeGreaterThanOrEqual(8);
    for (const { where, command } of commands) {
      expect(command, where).toEqual(["node", ...PROCESS_NODE_ARGS, command.at(-1)]);
    }
  });

  it("every package's start script runs its main module with them", () => {
    const scripts = startScripts();
    expect(scripts.length).toBeGreaterThanOrEqual(8);
    for (const { where, script } of scripts) {
      expect(script, where).toBe(`node ${PROCESS_NODE_ARGS.join(" ")} src/main.ts`);
    }
  });

  it("the bench's process, which runs the gateway in it, has the GC options", () => {
    const bench = (JSON.parse(read("test/package.json")) as { scripts: Record<string, string> }).scripts
      .bench;
    expect(bench).toBe(`node --conditions=source ${GC_NODE_ARGS.join(" ")} bench/run.ts`);
  });
});
