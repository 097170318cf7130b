/**
 * The load unit service's events (our own kinds: the spec names none for these resources).
 * LOAD_UNIT_CREATED / _UPDATED / _OBSOLETED, STACK_CREATED, OPERATIVE_CONTAINER_TYPE_CREATED /
 * _UPDATED, LOAD_UNIT_TYPE_CREATED / _UPDATED. Payload: the entity after the change.
 */
import { type DomainEvent, entityEvent } from "@fop/kit/events/envelope";
import {
  ContainerTypeSchema,
  LoadUnitSchema,
  StackSchema,
} from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import type { ContainerType, ContainerTypeKind, LoadUnit, Stack } from "../domain/types.ts";
import { toContainerTypeMessage, toLoadUnitMessage, toStackMessage } from "../rpc/mapper.ts";

export type LoadUnitEventType = "LOAD_UNIT_CREATED" | "LOAD_UNIT_UPDATED" | "LOAD_UNIT_OBSOLETED";

export const loadUnitEvent = (type: LoadUnitEventType, unit: LoadUnit): DomainEvent =>
  entityEvent(type, "LOAD_UNIT", unit, { schema: LoadUnitSchema, message: toLoadUnitMessage(unit) });

export const stackCreatedEvent = (stack: Stack): DomainEvent =>
  entityEvent("STACK_CREATED", "STACK", stack, { schema: StackSchema, message: toStackMessage(stack) });

export function containerTypeEvent(
  kind: ContainerTypeKind,
  change: "CREATED" | "UPDATED",
  type: ContainerType,
): DomainEvent {
  const entityType = kind === "OPERATIVE" ? "OPERATIVE_CONTAINER_TYPE" : "LOAD_UNIT_TYPE";
  return entityEvent(`${entityType}_${change}`, entityType, type, {
    schema: ContainerTypeSchema,
    message: toContainerTypeMessage(kind, type),
  });
}
