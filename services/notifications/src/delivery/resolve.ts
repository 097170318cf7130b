/**
 * What a webhook's host name resolves to: the operator's fixed entries (WEBHOOK_HOSTS, like an
 * /etc/hosts for webhooks: an in-cluster receiver's name, or the names a test controls), else DNS
 * (dns.lookup, so the system's resolver configuration applies). Names under `.invalid` never
 * resolve and are not asked about (RFC 6761 6.4). The same resolver serves the check at creation and
 * the lookup of every delivery, so both see the same addresses; the SSRF guard judges them all.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Resolve } from "../domain/ssrf.ts";

export type Hosts = ReadonlyMap<string, readonly { address: string; family: number }[]>;

const normalName = (name: string) => name.trim().replace(/\.$/, "").toLowerCase();
const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * `name=address` entries, comma-separated (a name given more than once resolves to all its
 * addresses), e.g. `hooks.internal=10.20.0.5,hooks.internal=fd00::5`; throws naming a malformed one.
 */
export function parseHosts(spec: string): Hosts {
  const hosts = new Map<string, { address: string; family: number }[]>();
  for (const entry of spec.split(",")) {
    if (!entry.trim()) continue;
    const [rawName, rawAddress, ...rest] = entry.split("=");
    const name = normalName(rawName ?? "");
    const address = (rawAddress ?? "").trim();
    const family = isIP(address);
    if (rest.length || !HOST_NAME.test(name) || isIP(name) || !family) {
      throw new Error(`not a name=address entry: ${entry.trim()}`);
    }
    hosts.set(name, [...(hosts.get(name) ?? []), { address, family }]);
  }
  return hosts;
}

const notFound = (host: string) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND", hostname: host });

/** A resolver: `hosts` first, then `dnsLookup` (every address of the name). */
export function hostResolver(
  hosts: Hosts,
  dnsLookup: (host: string) => Promise<readonly { address: string; family: number }[]> = (host) =>
    lookup(host, { all: true }),
): Resolve {
  return async (host) => {
    const name = normalName(host);
    const fixed = hosts.get(name);
    if (fixed) return fixed;
    if (name === "invalid" || name.endsWith(".invalid")) throw notFound(host);
    return dnsLookup(host);
  };
}
