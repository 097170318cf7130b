/**
 * Where webhooks may go (server-side request forgery): never to loopback, private, link-local
 * (cloud metadata), carrier-grade NAT, multicast or otherwise reserved addresses, unless an
 * operator allows a range explicitly (WEBHOOK_ALLOWED_CIDRS, e.g. 10.1.0.0/16 for an in-cluster
 * receiver, or 127.0.0.0/8 in development); and only over https unless plain http is allowed
 * (WEBHOOK_ALLOW_HTTP, on in development). The address is checked when a subscription is created
 * and again for every connection (the lookup the HTTP client uses), so a name that later resolves
 * elsewhere (DNS rebinding) is refused too. Pure functions.
 */
import { BlockList, isIP } from "node:net";

export interface TargetPolicy {
  allowHttp: boolean;
  /** Ranges allowed although they are not public, e.g. ["127.0.0.0/8"]. */
  allowedCidrs: readonly string[];
}

const BLOCKED_V4 = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const;
const BLOCKED_V6 = [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const;

const blocked = new BlockList();
for (const [net, prefix] of BLOCKED_V4) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of BLOCKED_V6) blocked.addSubnet(net, prefix, "ipv6");

/** A CIDR such as 10.0.0.0/8 or fd00::/8; throws naming it when malformed. */
function parseCidr(cidr: string): { net: string; prefix: number; family: "ipv4" | "ipv6" } {
  const [net, bits] = cidr.trim().split("/");
  const family = net ? isIP(net) : 0;
  const prefix = Number(bits);
  if (!net || !family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
    throw new Error(`not a CIDR range: ${cidr}`);
  }
  return { net, prefix, family: family === 4 ? "ipv4" : "ipv6" };
}

/** A test for "this address may be called" under `policy`. */
export function addressGuard(policy: TargetPolicy): (address: string) => boolean {
  const allowed = new BlockList();
  for (const cidr of policy.allowedCidrs) {
    const { net, prefix, family } = parseCidr(cidr);
    allowed.addSubnet(net, prefix, family);
  }
  return (address) => {
    let a = address;
    const family = isIP(a);
    if (!family) return false;
    // IPv4-mapped IPv6 (::ffff:10.0.0.1) is the IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
    if (mapped) a = mapped[1] as string;
    const type = isIP(a) === 4 ? "ipv4" : "ipv6";
    if (allowed.check(a, type)) return true;
    return !blocked.check(a, type);
  };
}

/** Why `url` cannot be a callback URL under `policy` (syntax, scheme, literal address), or undefined. */
export function callbackUrlProblem(
  url: string,
  policy: TargetPolicy,
  allowAddress: (a: string) => boolean,
): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "must be an absolute URL";
  }
  if (u.protocol !== "https:" && !(u.protocol === "http:" && policy.allowHttp)) {
    return policy.allowHttp ? "must be an http or https URL" : "must be an https URL";
  }
  if (u.username || u.password) return "must not carry credentials (use headers)";
  // "localhost." is localhost: the trailing dot of a fully qualified name is dropped first.
  const host = u.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (isIP(host) && !allowAddress(host)) return "must not point at a private, loopback or reserved address";
  if (!isIP(host) && (host === "localhost" || host.endsWith(".localhost")) && !allowAddress("127.0.0.1")) {
    return "must not point at a private, loopback or reserved address";
  }
  return undefined;
}
