import { describe, expect, it } from "vitest";
import { formatRetention, type RetentionRow, summariseScavenges } from "./rpc-retention.ts";

type Stats = Parameters<typeof summariseScavenges>[0];

/** A GC's statistics with these spaces' used bytes before and after it (the rest of the shape as V8's). */
function gc(
  gcType: string,
  costUs: number,
  before: Record<string, number>,
  after: Record<string, number>,
): Stats[number] {
  const state = (used: Record<string, number>) =>
    ({
      heapStatistics: {},
      heapSpaceStatistics: Object.entries(used).map(([spaceName, spaceUsedSize]) => ({
        spaceName,
        spaceUsedSize,
        spaceSize: 0,
        spaceAvailableSize: 0,
        physicalSpaceSize: 0,
      })),
    }) as unknown as Stats[number]["beforeGC"];
  return { gcType, cost: costUs, beforeGC: state(before), afterGC: state(after) } as Stats[number];
}

describe("summariseScavenges (rpc-retention)", () => {
  it("counts per call what each scavenge found allocated, kept young and promoted; a mark-compact only moves the young baseline", () => {
    const stats: Stats = [
      // The first GC: what came before it is not this run's (no allocation counted).
      gc("Scavenge", 4000, { new_space: 8000, old_space: 100 }, { new_space: 1000, old_space: 600 }),
      // 9000 allocated since the first left 1000 (10000 young before it, 1000 of them large); 2000
      // kept young, 500 promoted.
      gc(
        "Scavenge",
        6000,
        { new_space: 9000, new_large_object_space: 1000, old_space: 600 },
        { new_space: 2000, old_space: 1100 },
      ),
      // A mark-compact: 1000 allocated since (3000 young before it); no scavenge; the old generation shrinks.
      gc("MarkSweepCompact", 20_000, { new_space: 3000, old_space: 1100 }, { new_space: 0, old_space: 300 }),
    ];
    expect(summariseScavenges(stats, 10)).toEqual({
      scavenges: 2,
      meanPauseMs: 5,
      allocated: (9000 + 1000) / 10,
      survived: (1000 + 500 + 2000 + 500) / 10,
      promoted: (500 + 500) / 10,
    });
  });

  it("says nothing was kept when no GC ran", () => {
    expect(summariseScavenges([], 100)).toEqual({
      scavenges: 0,
      meanPauseMs: 0,
      allocated: 0,
      survived: 0,
      promoted: 0,
    });
  });
});

describe("formatRetention", () => {
  const row = (client: RetentionRow["client"], survived: number): RetentionRow => ({
    client,
    calls: 100,
    callsPerSecond: 1000,
    scavenges: 3,
    meanPauseMs: 2.25,
    allocated: 20_000,
    survived,
    promoted: survived / 2,
  });

  it("shows each client's median of its rounds, in the clients' order", () => {
    const table = formatRetention([
      row("kit client", 9000),
      row("node:http2", 3000),
      row("kit client", 7000),
      row("node:http2", 5000),
      row("node:http2", 4000),
    ]).split("\n");
    expect(table).toHaveLength(4);
    expect(table[2]).toMatch(/^node:http2\s+1000\s+3\s+2\.3\s+67\.5\s+20000\s+4000\s+2000$/);
    expect(table[3]).toMatch(/^kit client\s+1000\s+3\s+2\.3\s+67\.5\s+20000\s+8000\s+4000$/);
  });
});
