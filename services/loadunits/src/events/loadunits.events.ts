/**
 * The load unit service's events (our own kinds: the spec names none for these resources).
 * LOAD_UNIT_CREATED / _UPDATED / _OBSOLETED, STACK_CREATED, OPERATIVE_CONTAINER_TYPE_CREATED /
 * _UPDATED, LOAD_UNIT_TYPE_CREATED / _UPDATED. Payload: the entity after the change.
 */
import { create } from "@bufbuild/protobuf";
import type { DomainEvent } from "@fop/kit/events/envelope";
import {
  ContainerTypeSchema,
  LoadUnitSchema,
  StackSchema,
} from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import type { ContainerType, ContainerTypeKind, LoadUnit, Stack } from "../domain/types.ts";
import { toContainerTypeMessage, toLoadUnitMessage, toStackMessage } from "../rpc/mapper.ts";

export type LoadUnitEventType = "LOAD_UNIT_CREATED" | "LOAD_UNIT_UPDATED" | "LOAD_UNIT_OBSOLETED";

export function loadUnitEvent(type: LoadUnitEventType, unit: LoadUnit): DomainEvent {
  return {
    type,
    entityType: "LOAD_UNIT",
    entityRef: unit.id,
    entityVersion: unit.version,
    entityCreated: new Date(unit.created),
    payload: { schema: LoadUnitSchema, message: create(LoadUnitSchema, toLoadUnitMessage(unit)) },
  };
}

export function stackCreatedEvent(stack: Stack): DomainEvent {
  return {
    type: "STACK_CREATED",
    entityType: "STACK",
    entityRef: stack.id,
    entityVersion: stack.version,
    entityCreated: new Date(stack.created),
    payload: { schema: StackSchema, message: create(StackSchema, toStackMessage(stack)) },
  };
}

export function containerTypeEvent(
  kind: ContainerTypeKind,
  change: "CREATED" | "UPDATED",
  type: ContainerType,
): DomainEvent {
  const entityType = kind === "OPERATIVE" ? "OPERATIVE_CONTAINER_TYPE" : "LOAD_UNIT_TYPE";
  return {
    type: `${entityType}_${change}`,
    entityType,
    entityRef: type.id,
    entityVersion: type.version,
    entityCreated: new Date(type.created),
    payload: {
      schema: ContainerTypeSchema,
      message: create(ContainerTypeSchema, toContainerTypeMessage(kind, type)),
    },
  };
}
