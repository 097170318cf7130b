/**
 * Protection the platform does not have yet: a document's depth and its estimated cost are checked
 * before any resolver runs (in preExecution, where the variables are known).
 *
 * Depth: the most fields on one path from the root (`{ a { b } }` is 2). Fragments, inline or
 * spread, add nothing of their own: `... on PickJob { id }` is as deep as `id` (mercurius' own
 * check counts inline fragments as a level).
 *
 * Cost: every field costs 1 plus its selection; a connection multiplies its selection by the page
 * it asks for (`first`/`last`, else the default page); a list of objects without paging (line
 * items, a pick job's load units) by 10. The defaults let the views we know through with room to
 * spare (a facility's 20 open pick jobs with line items and load units costs about 2,500).
 */
import { invalid } from "@fop/kit/errors";
import type { GraphQLField } from "graphql";
import type { ComplexityEstimator } from "graphql-query-complexity";
import { gql, queryComplexity } from "./graphql-js.ts";

const { getNamedType, getNullableType, isCompositeType, isListType } = gql;

import type { DocumentNode, FragmentDefinitionNode, GraphQLSchema, SelectionSetNode } from "graphql";
import { LIST_DEFAULT, SEARCH_DEFAULT, SEARCH_MAX } from "./connections.ts";

export interface GraphqlLimits {
  maxDepth: number;
  maxComplexity: number;
}

export const DEFAULT_LIMITS: GraphqlLimits = { maxDepth: 15, maxComplexity: 50_000 };

const UNPAGED_LIST = 10;

const estimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const f = field as GraphQLField<unknown, unknown>;
  // A connection's edges are its page, already counted by the connection field.
  if (type.name.endsWith("Connection")) return 1 + childComplexity;
  const paged = f.args.some((a) => a.name === "first");
  if (paged) {
    const searched = f.args.some((a) => a.name === "last");
    const asked = Number(args.first ?? args.last ?? (searched ? SEARCH_DEFAULT : LIST_DEFAULT));
    // A page out of range fails in its resolver, but its siblings run: it costs a full page.
    const page = Number.isInteger(asked) && asked >= 1 && asked <= SEARCH_MAX ? asked : SEARCH_MAX;
    return 1 + page * childComplexity;
  }
  const returns = getNullableType(f.type);
  if (isListType(returns) && isCompositeType(getNamedType(returns)))
    return 1 + UNPAGED_LIST * childComplexity;
  return 1 + childComplexity;
};

/** The depth of `document`'s deepest operation (see the module comment). */
export function depthOf(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === gql.Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const depth = (set: SelectionSetNode | undefined, visiting: Set<string>): number => {
    let max = 0;
    for (const sel of set?.selections ?? []) {
      if (sel.kind === gql.Kind.FIELD) max = Math.max(max, 1 + depth(sel.selectionSet, visiting));
      else if (sel.kind === gql.Kind.INLINE_FRAGMENT) max = Math.max(max, depth(sel.selectionSet, visiting));
      else if (!visiting.has(sel.name.value)) {
        visiting.add(sel.name.value);
        max = Math.max(max, depth(fragments.get(sel.name.value)?.selectionSet, visiting));
        visiting.delete(sel.name.value);
      }
    }
    return max;
  };
  let deepest = 0;
  for (const d of document.definitions) {
    if (d.kind === gql.Kind.OPERATION_DEFINITION)
      deepest = Math.max(deepest, depth(d.selectionSet, new Set()));
  }
  return deepest;
}

/** The cost of running `document` (see the module comment). */
export function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string,
): number {
  return queryComplexity.getComplexity({
    schema,
    query: document,
    variables: variables ?? {},
    ...(operationName ? { operationName } : {}),
    estimators: [estimator],
  });
}

/** Throws QUERY_TOO_DEEP or QUERY_TOO_COMPLEX when the document is over a limit. */
export function checkLimits(
  limits: GraphqlLimits,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string,
): void {
  const depth = depthOf(document);
  if (depth > limits.maxDepth) {
    throw invalid(
      "QUERY_TOO_DEEP",
      `The query is ${depth} fields deep, more than the limit of ${limits.maxDepth}: split it, or ask for fewer nested relationships.`,
    );
  }
  const cost = costOf(schema, document, variables, operationName);
  if (cost > limits.maxComplexity) {
    throw invalid(
      "QUERY_TOO_COMPLEX",
      `The query costs ${cost}, more than the limit of ${limits.maxComplexity}: ask for smaller pages or fewer fields.`,
    );
  }
}
