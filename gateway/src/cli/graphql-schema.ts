/** `npm run graphql:schema`: prints the GraphQL schema (SDL); gateway/schema.graphql is its output. */
import { buildSdl } from "../graphql/schema.ts";

process.stdout.write(buildSdl());
