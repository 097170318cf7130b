/**
 * GraphiQL at /graphiql, for development (GRAPHQL_GRAPHIQL): the page and its scripts come from the
 * graphiql, react and react-dom packages installed with the gateway, never from a CDN. Paste a token
 * (`npm run token`) into the headers pane as {"Authorization": "Bearer <token>"}.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";

const require = createRequire(import.meta.url);

const ASSETS: Record<string, { module: string; file: string; type: string }> = {
  "react.js": { module: "react", file: "umd/react.production.min.js", type: "text/javascript" },
  "react-dom.js": { module: "react-dom", file: "umd/react-dom.production.min.js", type: "text/javascript" },
  "graphiql.js": { module: "graphiql", file: "graphiql.min.js", type: "text/javascript" },
  "graphiql.css": { module: "graphiql", file: "graphiql.min.css", type: "text/css" },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphiQL · fulfillment ops</title>
<link rel="stylesheet" href="/graphiql/assets/graphiql.css">
<style>body{margin:0;height:100vh}#graphiql{height:100vh}</style>
</head>
<body>
<div id="graphiql">Loading…</div>
<script src="/graphiql/assets/react.js"></script>
<script src="/graphiql/assets/react-dom.js"></script>
<script src="/graphiql/assets/graphiql.js"></script>
<script src="/graphiql/assets/start.js"></script>
</body>
</html>`;

const START = `ReactDOM.createRoot(document.getElementById("graphiql")).render(
  React.createElement(GraphiQL, {
    fetcher: GraphiQL.createFetcher({ url: "/graphql" }),
    defaultHeaders: JSON.stringify({ Authorization: "Bearer <token from npm run token>" }, null, 2),
    shouldPersistHeaders: true,
  }),
);`;

export function installGraphiql(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  const csp =
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:";
  app.get("/graphiql", { config: { auth: false } }, async (_req, reply) =>
    reply.type("text/html; charset=utf-8").header("content-security-policy", csp).send(PAGE),
  );
  app.get<{ Params: { file: string } }>(
    "/graphiql/assets/:file",
    { config: { auth: false } },
    async (req, reply) => {
      const file = req.params.file;
      if (file === "start.js") return reply.type("text/javascript").send(START);
      const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      if (!asset) return reply.callNotFound();
      let body = cache.get(file);
      if (!body) {
        // By the package's directory: the packages do not export their browser bundles.
        body = readFileSync(
          path.join(path.dirname(require.resolve(`${asset.module}/package.json`)), asset.file),
        );
        cache.set(file, body);
      }
      return reply.type(asset.type).header("cache-control", "public, max-age=86400").send(body);
    },
  );
}
