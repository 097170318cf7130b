/**
 * graphql-js as CommonJS, the build mercurius loads. graphql ships a
 * CommonJS and an ES build without an `exports` map, so a bundler-style resolver (vitest) hands ES
 * importers the ES build: two copies of the type classes, and every `instanceof` between them fails
 * ("Cannot use GraphQLNonNull from another module or realm"). Loading it through require keeps one
 * copy in every runtime.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const gql = require("graphql") as typeof import("graphql");
