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
 * spare (a facility's 20 open pick jobs with line items and load units costs about 2,500). A
 * fragment costs what its selection costs each time it is spread (as if written out); @skip and
 * @include with their variables are honoured.
 *
 * Both walks are linear in the document: a fragment's depth and cost are computed once and
 * remembered. Walking each spread again costs 2^n for n levels of two fragments that each spread
 * both fragments of the next level: our first depth check did, and a 1.8 KB document (n = 22) held
 * the event loop 835 ms (n = 30: minutes); graphql-query-complexity, used here before, did too and
 * gave up at its budget of 10,000 nodes with an error of its own instead of the cost. Remembered,
 * n = 30 (2.5 KB) takes 0.05-0.3 ms for the depth and 0.1-0.8 ms for the cost (limits.test.ts).
 */
import { invalid } from "@fop/kit/errors";
import type {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLCompositeType,
  GraphQLField,
  GraphQLSchema,
  SelectionNode,
  SelectionSetNode,
} from "graphql";
import { LIST_DEFAULT, SEARCH_DEFAULT, SEARCH_MAX } from "./connections.ts";
import { gql } from "./graphql-js.ts";

const { getNamedType, getNullableType, isCompositeType, isListType, isObjectType, isInterfaceType } = gql;

export interface GraphqlLimits {
  maxDepth: number;
  maxComplexity: number;
}

export const DEFAULT_LIMITS: GraphqlLimits = { maxDepth: 15, maxComplexity: 50_000 };

const UNPAGED_LIST = 10;

/** Costs saturate here instead of growing into imprecision (or Infinity). */
const COST_CAP = Number.MAX_SAFE_INTEGER;
const capped = (n: number) => Math.min(n, COST_CAP);

/** What one field costs, given its parent type, its arguments and what its selection costs. */
function fieldCost(
  parent: GraphQLCompositeType,
  field: GraphQLField<unknown, unknown>,
  args: Record<string, unknown>,
  childCost: number,
): number {
  // A connection's edges are its page, already counted by the connection field.
  if (parent.name.endsWith("Connection")) return capped(1 + childCost);
  const paged = field.args.some((a) => a.name === "first");
  if (paged) {
    const searched = field.args.some((a) => a.name === "last");
    const asked = Number(args.first ?? args.last ?? (searched ? SEARCH_DEFAULT : LIST_DEFAULT));
    // A page out of range fails in its resolver, but its siblings run: it costs a full page.
    const page = Number.isInteger(asked) && asked >= 1 && asked <= SEARCH_MAX ? asked : SEARCH_MAX;
    return capped(1 + page * childCost);
  }
  const returns = getNullableType(field.type);
  if (isListType(returns) && isCompositeType(getNamedType(returns)))
    return capped(1 + UNPAGED_LIST * childCost);
  return capped(1 + childCost);
}

const fragmentsOf = (document: DocumentNode) => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === gql.Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
};

/**
 * `measure` of the fragment `name`, remembered in `known`: each fragment is measured once however
 * often it is spread. A cycle (refused by validation before this runs) measures 0.
 */
function memo(known: Map<string, number>, name: string, measure: () => number): number {
  const seen = known.get(name);
  if (seen !== undefined) return seen;
  known.set(name, 0);
  const m = measure();
  known.set(name, m);
  return m;
}

/** The depth of `document`'s deepest operation (see the module comment). */
export function depthOf(document: DocumentNode): number {
  const fragments = fragmentsOf(document);
  const known = new Map<string, number>();
  const depth = (set: SelectionSetNode | undefined): number => {
    let max = 0;
    for (const sel of set?.selections ?? []) {
      const d =
        sel.kind === gql.Kind.FIELD
          ? 1 + depth(sel.selectionSet)
          : sel.kind === gql.Kind.INLINE_FRAGMENT
            ? depth(sel.selectionSet)
            : memo(known, sel.name.value, () => depth(fragments.get(sel.name.value)?.selectionSet));
      if (d > max) max = d;
    }
    return max;
  };
  let deepest = 0;
  for (const d of document.definitions)
    if (d.kind === gql.Kind.OPERATION_DEFINITION) deepest = Math.max(deepest, depth(d.selectionSet));
  return deepest;
}

/**
 * The cost of running `document` (see the module comment): of its operation `operationName`, or
 * of all its operations added up. Throws graphql-js' error for variables that do not fit their
 * definitions.
 */
export function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string,
): number {
  const fragments = fragmentsOf(document);
  let total = 0;
  for (const op of document.definitions) {
    if (op.kind !== gql.Kind.OPERATION_DEFINITION) continue;
    if (operationName !== undefined && op.name?.value !== operationName) continue;
    const root = schema.getRootType(op.operation);
    if (!root) continue;
    const coerced = gql.getVariableValues(schema, op.variableDefinitions ?? [], variables ?? {});
    if (coerced.errors) throw coerced.errors[0];
    const values = coerced.coerced;
    // Per operation: @skip/@include in a fragment may read this operation's variables.
    const known = new Map<string, number>();
    const included = (sel: SelectionNode) => {
      if (!sel.directives?.length) return true;
      if (gql.getDirectiveValues(gql.GraphQLSkipDirective, sel, values)?.if === true) return false;
      return gql.getDirectiveValues(gql.GraphQLIncludeDirective, sel, values)?.if !== false;
    };
    const cost = (set: SelectionSetNode, type: GraphQLCompositeType): number => {
      let sum = 0;
      const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
      for (const sel of set.selections) {
        if (!included(sel)) continue;
        if (sel.kind === gql.Kind.FIELD) {
          const name = sel.name.value;
          const field =
            name === "__typename"
              ? gql.TypeNameMetaFieldDef
              : name === "__schema"
                ? gql.SchemaMetaFieldDef
                : name === "__type"
                  ? gql.TypeMetaFieldDef
                  : fields[name];
          if (!field) continue; // unknown: validation has refused it already
          const named = getNamedType(field.type);
          const child = sel.selectionSet && isCompositeType(named) ? cost(sel.selectionSet, named) : 0;
          const args = gql.getArgumentValues(field, sel, values);
          sum = capped(sum + fieldCost(type, field as GraphQLField<unknown, unknown>, args, child));
        } else if (sel.kind === gql.Kind.INLINE_FRAGMENT) {
          const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : type;
          if (on && isCompositeType(on)) sum = capped(sum + cost(sel.selectionSet, on));
        } else {
          const name = sel.name.value;
          sum = capped(
            sum +
              memo(known, name, () => {
                const def = fragments.get(name);
                const on = def && schema.getType(def.typeCondition.name.value);
                return def && on && isCompositeType(on) ? cost(def.selectionSet, on) : 0;
              }),
          );
        }
      }
      return sum;
    };
    total = capped(total + cost(op.selectionSet, root));
  }
  return total;
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
