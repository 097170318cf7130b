/**
 * `npm run token -- --tenant <t> [--roles A,B] [--permissions X,Y] [--user <name>] [--expires <seconds>]`
 * prints a bearer token the locally started gateway accepts (signed with the local key in
 * AUTH_DEV_KEY_FILE, default .data/dev-signing-key.json at the repository root).
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { signDevToken } from "../auth.ts";
import { REPO_ROOT } from "../config.ts";

const { values } = parseArgs({
  options: {
    tenant: { type: "string" },
    roles: { type: "string", default: "" },
    permissions: { type: "string", default: "" },
    user: { type: "string", default: "dev-user" },
    expires: { type: "string", default: String(12 * 3600) },
  },
});
if (!values.tenant) {
  console.error(
    "usage: npm run token -- --tenant <tenant> [--roles ADMIN] [--permissions CATEGORY_READ,...] [--user <name>] [--expires <seconds>]",
  );
  process.exit(2);
}
const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
const keyFile = path.resolve(REPO_ROOT, process.env.AUTH_DEV_KEY_FILE ?? ".data/dev-signing-key.json");
const token = await signDevToken(keyFile, {
  tenant: values.tenant,
  sub: values.user,
  username: values.user,
  roles: list(values.roles),
  permissions: list(values.permissions),
  expiresIn: Number(values.expires),
});
process.stdout.write(`${token}\n`);
