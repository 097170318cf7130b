/**
 * A list RPC's `filters` (a `Struct`), read with the list's declaration from @fop/contracts: the
 * same schema the gateway validated the REST query or GraphQL arguments with, so a direct RPC
 * caller meets the same rules (closed: an unknown filter is refused; types, enums, limits, formats).
 */
import type { JsonObject as StructJson } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type { Static, TObject } from "@sinclair/typebox";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { RequestContext } from "../context.ts";
import { invalid } from "../errors.ts";
import { refuseUnknownFields } from "./proto.ts";
import { listPage } from "./search.ts";
import { requestContext } from "./server.ts";

/** Validators by declaration, compiled on a list's first call (a process that serves no list compiles none). */
const compiled = new WeakMap<TObject, ValidateFunction>();
let ajv: Ajv | undefined;

function validatorOf(declaration: TObject): ValidateFunction {
  let validate = compiled.get(declaration);
  if (!validate) {
    if (!ajv) {
      ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false });
      addFormats.default(ajv, ["date-time"]);
    }
    validate = ajv.compile(declaration);
    compiled.set(declaration, validate);
  }
  return validate;
}

/** The filters as the use case takes them; 400 INVALID_FILTER naming the first bad one. */
export function readFilters<T extends TObject>(declaration: T, filters: StructJson | undefined): Static<T> {
  const values = filters ?? {};
  const validate = validatorOf(declaration);
  if (validate(values)) return values as Static<T>;
  const e = validate.errors?.[0];
  const unknown = e?.keyword === "additionalProperties";
  const field = unknown
    ? String(e.params.additionalProperty)
    : (e?.instancePath.slice(1).split("/")[0] ?? "");
  const problem = unknown ? "is not a filter of this list" : e?.message;
  throw invalid("INVALID_FILTER", `${field || "filters"}: ${problem}.`, field || undefined);
}

/**
 * A list RPC's arguments for its use case, after `deps`: the request context, the filters read
 * with `declaration` and the page (`list(deps, ...listCall(hctx, Declaration, req))`).
 */
export const listCall = <T extends TObject>(
  hctx: HandlerContext,
  declaration: T,
  req: {
    filters?: StructJson | undefined;
    page?: { size: number; startAfterId: string } | undefined;
    $unknown?: { no: number }[] | undefined;
  },
): [RequestContext, Static<T>, { size: number; startAfterId: string }] => {
  refuseUnknownFields(req, "a list's filters are its `filters` Struct (see the proto).");
  return [requestContext(hctx), readFilters(declaration, req.filters), listPage(req.page)];
};
