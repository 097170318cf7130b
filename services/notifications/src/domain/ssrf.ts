/**
 * Where webhooks may go (server-side request forgery): only to plain global unicast addresses, never
 * to loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast, documentation or
 * otherwise special-purpose ones (the classification of `ipaddr.js`, which follows the IANA
 * registries), unless an operator allows a range explicitly (WEBHOOK_ALLOWED_CIDRS, e.g.
 * 10.1.0.0/16 for an in-cluster receiver, or 127.0.0.0/8 in development); and only over https
 * unless plain http is allowed (WEBHOOK_ALLOW_HTTP, on in development).
 *
 * An IPv6 address that carries an IPv4 address (IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96,
 * IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and the local-use 64:ff9b:1::/48, 6to4
 * 2002::/16) is judged by the IPv4 address it carries: `[64:ff9b::a9fe:a9fe]` is the cloud metadata
 * service behind a NAT64 gateway. Teredo (2001::/32) obfuscates its addresses and is refused.
 *
 * The address is checked when a subscription is created (a literal one, and what a name resolves
 * to through an injected resolver) and again for every connection (the lookup the HTTP client uses),
 * so a name that later resolves elsewhere (DNS rebinding) is refused too. Whether a name does not
 * resolve or resolves to a refused address is not told apart (one message): the answer must not
 * tell a caller what the platform's DNS knows about internal names.
 */
import { BlockList, isIP } from "node:net";
import ipaddr from "ipaddr.js";

export interface TargetPolicy {
  allowHttp: boolean;
  /** Ranges allowed although they are not public, e.g. ["127.0.0.0/8"]. */
  allowedCidrs: readonly string[];
}

/** The one answer for a callback URL whose host is, or resolves to, a refused address, or does not resolve. */
export const ADDRESS_REFUSED =
  "must name a host that resolves, and only to public addresses (not private, loopback, link-local or reserved ones)";

/** What a name resolves to (a dns.lookup with `all: true`); rejects when it does not resolve. */
export type Resolve = (host: string) => Promise<readonly { address: string; family: number }[]>;

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

const v4 = (a: number, b: number, c: number, d: number) => new ipaddr.IPv4([a, b, c, d]);

/**
 * The IPv4 addresses an IPv6 address carries, or undefined when it carries none. For the local-use
 * NAT64 prefix 64:ff9b:1::/48 the operator picks the prefix length (RFC 6052 2.2: /48, /56, /64 or
 * /96 fit inside it), so every layout's address is returned and each must pass.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const [w0, w1, w2, w3, w4, w5] = address.parts as number[];
  const b = address.toByteArray();
  const last = v4(b[12]!, b[13]!, b[14]!, b[15]!);
  const zero = (...words: (number | undefined)[]) => words.every((w) => w === 0);
  // ::/96 IPv4-compatible (deprecated; :: and ::1 carry 0.0.0.0 and 0.0.0.1, both refused).
  if (zero(w0, w1, w2, w3, w4, w5)) return [last];
  // ::ffff:0:0/96 IPv4-mapped.
  if (zero(w0, w1, w2, w3, w4) && w5 === 0xffff) return [last];
  // ::ffff:0:0:0/96 IPv4-translated (SIIT).
  if (zero(w0, w1, w2, w3) && w4 === 0xffff && w5 === 0) return [last];
  // 64:ff9b::/96 NAT64, well-known prefix.
  if (w0 === 0x64 && w1 === 0xff9b && zero(w2, w3, w4, w5)) return [last];
  // 64:ff9b:1::/48 NAT64, local-use (RFC 8215); bits 64-71 are the reserved "u" octet.
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 1) {
    return [
      v4(b[6]!, b[7]!, b[9]!, b[10]!),
      v4(b[7]!, b[9]!, b[10]!, b[11]!),
      v4(b[9]!, b[10]!, b[11]!, b[12]!),
      last,
    ];
  }
  // 2002::/16 6to4: the IPv4 address in bits 16-47.
  if (w0 === 0x2002) return [v4(b[2]!, b[3]!, b[4]!, b[5]!)];
  return undefined;
}

/** A test for "this address may be called" under `policy`. */
export function addressGuard(policy: TargetPolicy): (address: string) => boolean {
  const allowed = new BlockList();
  for (const cidr of policy.allowedCidrs) {
    const { net, prefix, family } = parseCidr(cidr);
    allowed.addSubnet(net, prefix, family);
  }
  const allowV4 = (a: ipaddr.IPv4) => allowed.check(a.toString(), "ipv4") || a.range() === "unicast";
  return (address) => {
    const family = isIP(address);
    // Only the canonical spellings (what URL parsing and DNS give); 010.0.0.1 is not guessed at.
    if (family === 4)
      return ipaddr.IPv4.isValidFourPartDecimal(address) && allowV4(ipaddr.IPv4.parse(address));
    if (family !== 6) return false;
    // (BlockList matches an IPv4-mapped address against IPv4 ranges itself.)
    if (allowed.check(address, "ipv6")) return true;
    const ip = ipaddr.IPv6.parse(address);
    const carried = embeddedIPv4(ip);
    if (carried) return carried.every(allowV4);
    return ip.range() === "unicast";
  };
}

/** The host of a parsed URL as an address or name: no brackets, no trailing dot, lower case. */
export const urlHost = (u: URL): string =>
  u.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();

/** Why `url` cannot be a callback URL under `policy` (syntax, scheme, port, literal address), or undefined. */
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
  // Port 0 is no port: connecting to it goes nowhere (or, on some stacks, anywhere).
  if (u.port === "0") return "must not name port 0";
  // URL parsing has already turned 2130706433, 0x7f.1 and [0:0:0:0:0:ffff:127.0.0.1] into the
  // canonical address; "localhost." is localhost.
  const host = urlHost(u);
  if (isIP(host) && !allowAddress(host)) return ADDRESS_REFUSED;
  if (!isIP(host) && (host === "localhost" || host.endsWith(".localhost")) && !allowAddress("127.0.0.1")) {
    return ADDRESS_REFUSED;
  }
  return undefined;
}

/**
 * Why `url` cannot be a callback URL (callbackUrlProblem), including what its name resolves to
 * now through `resolve`; undefined when it can. A name that does not resolve gets the same answer as
 * one that resolves to a refused address.
 */
export async function checkCallbackUrl(
  url: string,
  policy: TargetPolicy,
  allowAddress: (a: string) => boolean,
  resolve: Resolve,
): Promise<string | undefined> {
  const problem = callbackUrlProblem(url, policy, allowAddress);
  if (problem) return problem;
  const host = urlHost(new URL(url));
  if (isIP(host)) return undefined;
  const addresses = await resolve(host).catch(() => []);
  return addresses.length > 0 && addresses.every((a) => allowAddress(a.address))
    ? undefined
    : ADDRESS_REFUSED;
}
