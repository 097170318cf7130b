/**
 * `X-User-Agent: <AppName>/<AppVersion>`: the optional header a GraphQL (or REST) client names
 * itself with. A well-formed one is logged with the request, put on its trace and recorded as the
 * client in audit records; a malformed one is ignored (the request goes on as if it were absent),
 * never rejected — the platform may still change the format during the beta.
 */
export interface ClientApp {
  name: string;
  version: string;
}

const FORMAT = /^([A-Za-z0-9][A-Za-z0-9._-]{0,63})\/([A-Za-z0-9][A-Za-z0-9.+_-]{0,63})$/;

/** The app a header value names, or undefined when absent or malformed. */
export function parseClientApp(header: string | string[] | undefined): ClientApp | undefined {
  if (typeof header !== "string") return undefined;
  const m = FORMAT.exec(header.trim());
  return m ? { name: m[1]!, version: m[2]! } : undefined;
}
