/**
 * `npm run rpc-token -- --caller <name> --tenants <a,b> [--expires <seconds>]` prints a bearer token
 * for an internal team's program that calls the services directly (services/kit/src/rpc/auth.ts).
 * Signs with RPC_AUTH_KEY, else the key `npm start` keeps in .data/rpc-auth-key. In a cluster:
 * `RPC_AUTH_KEY=$(kubectl -n $NS get secret rpc-auth -o jsonpath='{.data.key}' | base64 -d) npm run --silent rpc-token -- ...`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { env, loadConfig } from "../config.ts";
import { rpcKeys, signCallerToken } from "../rpc/auth.ts";

const USAGE =
  "usage: npm run rpc-token -- --caller <name> --tenants <tenant,...> [--expires <seconds, default 86400>]";
const { values } = parseArgs({
  options: {
    caller: { type: "string" },
    tenants: { type: "string" },
    expires: { type: "string", default: String(24 * 3600) },
  },
});
if (!values.caller || !values.tenants) {
  console.error(USAGE);
  process.exit(2);
}
const keyFile = path.resolve(import.meta.dirname, "../../../../.data/rpc-auth-key");
let key = loadConfig({
  RPC_AUTH_KEY: env.optionalString(
    "the cluster's RPC key the token is signed with (unset: the key npm start keeps in .data/rpc-auth-key)",
  ),
}).RPC_AUTH_KEY;
if (!key) {
  try {
    key = readFileSync(keyFile, "utf8").trim();
  } catch {
    console.error(`RPC_AUTH_KEY is not set and ${keyFile} does not exist (npm start creates it).`);
    process.exit(2);
  }
}
try {
  const token = await signCallerToken(rpcKeys({ RPC_AUTH_KEY: key }), {
    caller: values.caller,
    tenants: values.tenants
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
    expiresInS: Number(values.expires),
  });
  process.stdout.write(`${token}\n`);
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
