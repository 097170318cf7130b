/**
 * Protection the platform does not have yet: a document's depth and its estimated cost are checked
 * before any resolver runs (mercurius' queryDepth, and the cost in preExecution, where the
 * variables are known).
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

import type { DocumentNode, GraphQLSchema } from "graphql";
import { LIST_DEFAULT, SEARCH_DEFAULT } from "./connections.ts";

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
    const page = Number(args.first ?? args.last ?? (searched ? SEARCH_DEFAULT : LIST_DEFAULT));
    return 1 + page * childComplexity;
  }
  const returns = getNullableType(f.type);
  if (isListType(returns) && isCompositeType(getNamedType(returns)))
    return 1 + UNPAGED_LIST * childComplexity;
  return 1 + childComplexity;
};

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

/** Throws QUERY_TOO_COMPLEX when the document costs more than the limit. */
export function checkCost(
  limits: GraphqlLimits,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string,
): void {
  const cost = costOf(schema, document, variables, operationName);
  if (cost > limits.maxComplexity) {
    throw invalid(
      "QUERY_TOO_COMPLEX",
      `The query costs ${cost}, more than the limit of ${limits.maxComplexity}: ask for smaller pages or fewer fields.`,
    );
  }
}
