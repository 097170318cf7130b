/**
 * startNatsCluster (infra.ts): three real nats-servers. A replicated stream survives one server's
 * crash, and the server rejoins and catches up when started again.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { jetstream, jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type NatsCluster, portFree, startNatsCluster } from "./dev/infra.ts";

let dir: string;
let cluster: NatsCluster;
let nc: NatsConnection;
/** The client ports given (the launcher gives 4222-4224 when they are free). */
let clientPorts: number[];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "fop-nats-cluster-"));
  clientPorts = [];
  while (clientPorts.length < 3) {
    const p = await freePort();
    if (!clientPorts.includes(p)) clientPorts.push(p);
  }
  cluster = await startNatsCluster({ dataDir: dir, clientPorts });
  nc = await connect({ servers: cluster.url.split(","), maxReconnectAttempts: -1, reconnectTimeWait: 200 });
}, 60_000);

afterAll(async () => {
  await nc?.close();
  const pids = cluster?.pids() ?? [];
  await cluster?.stop();
  for (const pid of pids) if (pid) expect(() => process.kill(pid, 0)).toThrow(); // every server exited
  rmSync(dir, { recursive: true, force: true });
});

/** The stream's replicas other than its leader, by name, with whether each is current. */
async function peers(
  name: string,
): Promise<{ leader?: string; replicas: { name: string; current: boolean }[] }> {
  const info = await jetstreamManager(nc).then((jsm) => jsm.streams.info(name));
  return { leader: info.cluster?.leader, replicas: info.cluster?.replicas ?? [] };
}

describe("startNatsCluster", () => {
  it("starts three servers on distinct ports, named by NATS_URL's comma-separated form", () => {
    expect(cluster.urls).toEqual(clientPorts.map((p) => `nats://127.0.0.1:${p}`));
    expect(cluster.url).toBe(cluster.urls.join(","));
    expect(cluster.pids().every((pid) => pid > 0)).toBe(true);
  });

  it("runs each server in a process group of its own (a terminal's Ctrl-C reaches only the launcher)", () => {
    for (const pid of cluster.pids()) expect(pgid(pid)).toBe(pid);
  });

  it("tells a taken port from a free one (portFree)", async () => {
    expect(await portFree(clientPorts[0]!)).toBe(false);
    expect(await portFree(await freePort())).toBe(true);
  });

  it("holds an R3 stream, keeps taking publishes with a server killed, and takes it back", async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({
      name: "CLUSTER_T",
      subjects: ["cluster-t.>"],
      storage: StorageType.File,
      num_replicas: 3,
    });
    const js = jetstream(nc);
    expect((await js.publish("cluster-t.a", "1")).seq).toBe(1);
    expect((await peers("CLUSTER_T")).replicas).toHaveLength(2);

    const killed = cluster.pids()[1]!;
    cluster.kill(1);
    expect(cluster.pids()[1]).toBe(0);
    await expect.poll(() => isAlive(killed), { timeout: 5_000 }).toBe(false);
    // Two of three: the quorum. Publishing goes on (after a leader election if nats-1 led the stream).
    await expect
      .poll(
        () =>
          js.publish("cluster-t.a", "2", { msgID: "2" }).then(
            (a) => a.seq,
            () => 0,
          ),
        { timeout: 15_000 },
      )
      .toBe(2);

    await cluster.start(1);
    expect(cluster.pids()[1]).toBeGreaterThan(0);
    expect(cluster.pids()[1]).not.toBe(killed);
    // nats-1 is a current replica again: it caught up on what was published without it.
    await expect
      .poll(
        async () => {
          const { leader, replicas } = await peers("CLUSTER_T");
          return [leader, ...replicas.filter((r) => r.current).map((r) => r.name)].sort();
        },
        { timeout: 15_000, interval: 250 },
      )
      .toEqual(["nats-0", "nats-1", "nats-2"]);
    expect((await js.publish("cluster-t.a", "3")).seq).toBe(3);
  }, 60_000);
});

/** The process group of `pid` (Linux: field 5 of /proc/<pid>/stat, after the parenthesised name). */
function pgid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
