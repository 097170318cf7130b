import { readFileSync } from "node:fs";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, portFree } from "./infra.ts";

const ephemeralStart = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    return undefined;
  }
})();

describe("freePort", () => {
  it("hands out a port nothing listens on", async () => {
    const port = await freePort();
    expect(await portFree(port)).toBe(true);
  });

  it.runIf(ephemeralStart !== undefined && ephemeralStart > 11_000)(
    "chooses below the ephemeral range, where no outgoing connection can take the port first",
    async () => {
      const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
      for (const port of ports) {
        expect(port).toBeGreaterThanOrEqual(10_000);
        expect(port).toBeLessThan(ephemeralStart!);
      }
      // An outgoing connection's local port is in the range (what the old choice collided with).
      const server = net.createServer().listen(0, "127.0.0.1");
      await new Promise((r) => server.once("listening", r));
      const socket = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
      await new Promise((r) => socket.once("connect", r));
      expect(socket.localPort).toBeGreaterThanOrEqual(ephemeralStart!);
      socket.destroy();
      server.close();
    },
  );
});
