/**
 * JSON values as the documents the services store and send carry them: the one definition every
 * package uses (structurally the same as @bufbuild/protobuf's JsonValue/JsonObject, so a document
 * goes into a proto `Struct` unchanged, without domain code importing the wire library).
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
