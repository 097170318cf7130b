/**
 * The reference's action bodies: an action parameter (POST .../actions, one `name`) and a deprecated
 * PATCH action (one `action`), used by pick jobs and pick runs.
 */
import { type TInteger, type TProperties, type TSchema, Type } from "@sinclair/typebox";
import { closed, RequestVersion, StringEnum } from "./common.ts";

const Version = RequestVersion({ minimum: 0, description: "Version of the entity to be changed" });
/** Some actions' version has no minimum in the reference. */
export const LooseVersion = RequestVersion();

interface ActionOptions<P extends TProperties> {
  title: string;
  description: string;
  /** Title of the reference's one-value `name` enum; default: the title with "Parameter" -> "Enum". */
  enumTitle?: string;
  extra?: P;
  version?: TInteger;
}
/** An action parameter of the reference: closed, `name` (one value) and `version` required, plus `extra`. */
export const actionParameter = <const N extends string, P extends TProperties = Record<never, TSchema>>(
  name: N,
  { title, description, enumTitle, extra, version = Version }: ActionOptions<P>,
) =>
  Type.Object(
    {
      name: StringEnum([name], { title: enumTitle ?? title.replace(/Parameter$/, "Enum") }),
      version,
      ...(extra as P),
    },
    { ...closed, title, description },
  );

/** A deprecated PATCH action of the reference: closed, `action` (one value) required, plus `extra`. */
export const patchAction = <const N extends string, P extends TProperties = Record<never, TSchema>>(
  action: N,
  description: string,
  extra?: P,
  deprecated?: boolean,
) =>
  Type.Object(
    { action: StringEnum([action], { description: `Use value '${action}'` }), ...(extra as P) },
    { ...closed, title: action, description, ...(deprecated ? { deprecated } : {}) },
  );
