/**
 * Pick runs: several pick jobs picked together. The run's lines are aggregated from (batch) or
 * mirror (multiOrder) the jobs' lines; `lineSources` remembers which job lines each run line was
 * built from. The pick run domain never edits a pick job itself: every change returns the
 * COMMANDS (pick job action bodies without version) the use case applies to the jobs through the
 * pick job state machine in the same transaction. Pure: no I/O, time from ctx.now, ids from
 * ctx.newId(), inputs are never mutated.
 */
import { invalid, precondition } from "@fop/kit/errors";
import { lookupTable } from "@fop/kit/lookup";
import { INTERNAL_ACTIONS } from "./lifecycle.ts";
import { PICKING_LIMITS, requireAtMost, requireStaysWithin } from "./limits.ts";
import { splitSecondary, updateStockLocations } from "./lines.ts";
import {
  type PickingMoment,
  requireEnabled,
  requireKnownShortPickReason,
  requireLoadUnit,
  rulesOf,
  shortPickReason as toShortPickReason,
} from "./picking-config.ts";
import type {
  ActionContext,
  JsonObject,
  PartialStockLocation,
  PickJob,
  PickJobStatus,
  PickLineItem,
  PickLineItemStatus,
  PickRun,
  PickRunKind,
  PickRunLineItem,
  PickRunStatus,
  PickRunType,
  RunLineSource,
} from "./types.ts";
import { PICK_RUN_TYPES } from "./types.ts";

/** A pick job action body (without version) for one job, e.g. `{name: "START"}`. */
export type JobCommand = { pickJobRef: string; action: JsonObject };

export type PickRunEventType =
  | "PICK_RUN_CREATED"
  | "PICK_RUN_STARTED"
  | "PICK_RUN_FINISHED"
  | "PICK_RUN_CANCELED"
  | "PICK_RUN_PAUSED"
  | "PICK_RUN_RESUMED"
  | "PICK_RUN_UPDATED";

export interface RunChange {
  run: PickRun;
  commands: JobCommand[];
  event: PickRunEventType;
}

export const PICK_RUN_ACTIONS = [
  "START",
  "PAUSE",
  "RESUME",
  "FINISH",
  "CANCEL",
  "TAKE_OVER_PICK_RUN",
  "REMOVE_PICK_JOB",
  "SPLIT_LINES_PICK_RUN",
] as const;
export type PickRunActionName = (typeof PICK_RUN_ACTIONS)[number];

/** Statuses in which a run can still change. */
export const ACTIVE_RUN_STATUSES: readonly PickRunStatus[] = ["OPEN", "IN_PROGRESS", "PAUSED"];

/** Pick job statuses a job may have when it joins a run. */
export const JOINABLE_JOB_STATUSES: readonly PickJobStatus[] = INTERNAL_ACTIONS.ATTACH_PICK_RUN;

/**
 * The run state machine: per action, the statuses it is allowed in, the status it leads to (none =
 * unchanged) and the event it raises. REMOVE_PICK_JOB additionally makes the run OBSOLETE when its
 * last job leaves.
 */
export const RUN_TRANSITIONS: Readonly<
  Record<PickRunActionName, { from: readonly PickRunStatus[]; to?: PickRunStatus; event: PickRunEventType }>
> = {
  START: { from: ["OPEN"], to: "IN_PROGRESS", event: "PICK_RUN_STARTED" },
  PAUSE: { from: ["IN_PROGRESS"], to: "PAUSED", event: "PICK_RUN_PAUSED" },
  RESUME: { from: ["PAUSED"], to: "IN_PROGRESS", event: "PICK_RUN_RESUMED" },
  FINISH: { from: ["IN_PROGRESS"], to: "CLOSED", event: "PICK_RUN_FINISHED" },
  CANCEL: { from: ACTIVE_RUN_STATUSES, to: "CANCELED", event: "PICK_RUN_CANCELED" },
  TAKE_OVER_PICK_RUN: { from: ACTIVE_RUN_STATUSES, event: "PICK_RUN_UPDATED" },
  REMOVE_PICK_JOB: { from: ACTIVE_RUN_STATUSES, event: "PICK_RUN_UPDATED" },
  SPLIT_LINES_PICK_RUN: { from: ACTIVE_RUN_STATUSES, event: "PICK_RUN_UPDATED" },
};

/** Deprecated PATCH actions and the /actions action each stands for. */
const DEPRECATED_PATCH_ACTIONS = lookupTable<PickRunActionName>({
  StartPickRun: "START",
  CancelPickRun: "CANCEL",
  FinishPickRun: "FINISH",
});

// ------------------------------------------------------------------------------------------------
// Type

/** The reference's schema default for a run created without a type. */
export const DEFAULT_PICK_RUN_TYPE: PickRunType = "batchPick";

/**
 * The type a run is created with, kept as sent: the deprecated names (batchPick, multiOrderPick) are
 * stored and answered as they came (the reference lists them as values of the type), never rewritten.
 */
export function parsePickRunType(t: string | undefined): PickRunType {
  if (t === undefined) return DEFAULT_PICK_RUN_TYPE;
  if ((PICK_RUN_TYPES as readonly string[]).includes(t)) return t as PickRunType;
  throw invalid(
    "INVALID_PICK_RUN_TYPE",
    `Unknown pick run type ${JSON.stringify(t)}; expected one of ${PICK_RUN_TYPES.join(", ")}.`,
    "/pickRunType",
  );
}

/** What a type means: a deprecated name builds its lines as its replacement does. */
export function pickRunKind(type: PickRunType): PickRunKind {
  return type === "batch" || type === "batchPick" ? "batch" : "multiOrder";
}

// ------------------------------------------------------------------------------------------------
// Distribution of picked quantities over a run line's sources

/**
 * Distributes a run line's absolute `picked` over its sources in order, filling each up to its
 * quantity; whatever is left (an over-pick) goes onto the last source.
 */
export function distributePicked(picked: number, quantities: readonly number[]): number[] {
  let rest = picked;
  const out = quantities.map((q) => {
    const take = Math.max(0, Math.min(q, rest));
    rest -= take;
    return take;
  });
  if (out.length > 0) out[out.length - 1]! += rest;
  return out;
}

/** Integer shares of `total` proportional to `weights` (floored); the remainder goes to the last. */
export function distributeProportionally(total: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const sum = weights.reduce((a, b) => a + b, 0);
  const out = weights.map((w) => (sum > 0 ? Math.floor((total * w) / sum) : 0));
  const others = out.slice(0, -1).reduce((a, b) => a + b, 0);
  out[out.length - 1] = total - others;
  return out;
}

interface SourceShare {
  source: RunLineSource;
  picked: number;
  secondaryPicked?: number;
}

/** What each source of a run line gets of the line's picked (and secondaryPicked). */
export function sourceShares(line: PickRunLineItem, sources: readonly RunLineSource[]): SourceShare[] {
  const picked = distributePicked(
    line.picked,
    sources.map((s) => s.quantity),
  );
  let secondary: number[] | undefined;
  if (line.secondaryPicked !== undefined) {
    const pickedSum = picked.reduce((a, b) => a + b, 0);
    secondary = distributeProportionally(
      line.secondaryPicked,
      pickedSum > 0 ? picked : sources.map((s) => s.quantity),
    );
  }
  return sources.map((source, i) => {
    const share: SourceShare = { source, picked: picked[i]! };
    if (secondary) share.secondaryPicked = secondary[i]!;
    return share;
  });
}

interface JobLineTotal {
  picked: number;
  secondaryPicked?: number;
}

/**
 * Per job and job line: the picked totals the run's lines give it (a job line split over several
 * run lines sums their shares). Maps keep first-seen order (run line order).
 */
export function jobLineTotals(run: PickRun): Map<string, Map<string, JobLineTotal>> {
  const totals = new Map<string, Map<string, JobLineTotal>>();
  for (const line of run.pickLineItems) {
    for (const share of sourceShares(line, run.lineSources[line.id] ?? [])) {
      const { pickJobRef, lineItemId } = share.source;
      let perJob = totals.get(pickJobRef);
      if (!perJob) {
        perJob = new Map();
        totals.set(pickJobRef, perJob);
      }
      const total = perJob.get(lineItemId) ?? { picked: 0 };
      total.picked += share.picked;
      if (share.secondaryPicked !== undefined) {
        total.secondaryPicked = (total.secondaryPicked ?? 0) + share.secondaryPicked;
      }
      perJob.set(lineItemId, total);
    }
  }
  return totals;
}

// ------------------------------------------------------------------------------------------------
// Creation

export interface PickRunInput {
  facilityRef: string;
  pickJobRefs: string[];
  pickRunType?: string;
  status?: string;
}

type SourceLine = { job: PickJob; line: PickLineItem };

const clone = <T>(v: T): T => structuredClone(v);

function buildRunLine(id: string, parts: readonly SourceLine[], kind: PickRunKind): PickRunLineItem {
  const first = parts[0]!.line;
  const line: PickRunLineItem = {
    id,
    article: clone(first.article),
    quantity: 0,
    picked: 0,
    status: "OPEN",
  };
  if (first.measurementUnitKey !== undefined) line.measurementUnitKey = first.measurementUnitKey;
  if (first["secondaryMeasurementUnitKey"] !== undefined) {
    line["secondaryMeasurementUnitKey"] = clone(first["secondaryMeasurementUnitKey"]);
  }
  if (first.measurementValidation !== undefined)
    line.measurementValidation = clone(first.measurementValidation);
  if (first.allowedSubstitutes !== undefined) line.allowedSubstitutes = clone(first.allowedSubstitutes);

  const scannable: string[] = [];
  const psl: PartialStockLocation[] = [];
  const globalIds: string[] = [];
  let secondaryQuantity: number | undefined;
  let secondaryPicked: number | undefined;
  for (const { line: l } of parts) {
    line.quantity += l.quantity;
    line.picked += l.picked ?? 0;
    if (l.secondaryQuantity !== undefined) secondaryQuantity = (secondaryQuantity ?? 0) + l.secondaryQuantity;
    if (l.secondaryPicked !== undefined) secondaryPicked = (secondaryPicked ?? 0) + l.secondaryPicked;
    for (const code of l.scannableCodes ?? []) if (!scannable.includes(code)) scannable.push(code);
    for (const p of l.partialStockLocations ?? []) psl.push(clone(p));
    if (l.globalLineItemId !== undefined) globalIds.push(l.globalLineItemId);
  }
  if (secondaryQuantity !== undefined) line.secondaryQuantity = secondaryQuantity;
  if (secondaryPicked !== undefined) line.secondaryPicked = secondaryPicked;
  if (first.scannableCodes !== undefined || scannable.length > 0) line.scannableCodes = scannable;
  if (psl.length > 0) line.partialStockLocations = psl;
  line.globalLineItemIds = globalIds;

  if (kind === "multiOrder") {
    const { job } = parts[0]!;
    line.pickJobRef = job.id;
    line.pickJobLineItemRef = first.id;
    for (const key of ["recordableAttributes", "stickers", "tags", "customAttributes"] as const) {
      if (first[key] !== undefined) (line as Record<string, unknown>)[key] = clone(first[key]);
    }
  }
  return line;
}

/**
 * A new run from the referenced jobs (`jobs` = the jobs as loaded; refs missing from it do not
 * exist). Emits ATTACH_PICK_RUN for every job.
 */
export function createPickRun(
  input: PickRunInput,
  jobs: readonly PickJob[],
  ctx: ActionContext & { id: string },
): RunChange {
  const pickRunType = parsePickRunType(input.pickRunType);
  const kind = pickRunKind(pickRunType);
  if (input.status !== undefined && input.status !== "OPEN") {
    throw invalid(
      "INVALID_PICK_RUN_STATUS",
      `A pick run can only be created in status OPEN, not ${input.status}.`,
      "/status",
    );
  }
  if (input.pickJobRefs.length === 0) {
    throw invalid("MISSING_PICK_JOB_REFS", "A pick run needs at least one pick job.", "/pickJobRefs");
  }
  requireAtMost(
    input.pickJobRefs.length,
    rulesOf(ctx).maxPickJobsPerRun[kind],
    `pickJobRefs per ${pickRunType} pick run (the tenant's ${kind === "batch" ? "batchPickingConfiguration" : "multiOrderPickingConfiguration"})`,
    "/pickJobRefs",
  );
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const seen = new Set<string>();
  const selected: PickJob[] = [];
  input.pickJobRefs.forEach((ref, i) => {
    const field = `/pickJobRefs/${i}`;
    if (seen.has(ref)) {
      throw invalid("DUPLICATE_PICK_JOB_REF", `Pick job ${ref} is referenced more than once.`, field);
    }
    seen.add(ref);
    const job = byId.get(ref);
    if (!job)
      throw invalid("PICK_JOB_NOT_FOUND", `No pick job with id ${JSON.stringify(ref)} exists.`, field);
    if (job.facilityRef !== input.facilityRef) {
      throw invalid(
        "PICK_JOB_IN_OTHER_FACILITY",
        `Pick job ${ref} belongs to facility ${job.facilityRef}, not to the pick run's facility ${input.facilityRef}.`,
        field,
      );
    }
    if (!JOINABLE_JOB_STATUSES.includes(job.status)) {
      throw precondition(
        "PICK_JOB_NOT_AVAILABLE",
        `Pick job ${ref} is in status ${job.status}; only pick jobs in status ${JOINABLE_JOB_STATUSES.join(", ")} can be added to a pick run.`,
      );
    }
    if (job.pickRunRef) {
      throw precondition(
        "PICK_JOB_NOT_AVAILABLE",
        `Pick job ${ref} already belongs to pick run ${job.pickRunRef}.`,
      );
    }
    selected.push(job);
  });

  const groups: SourceLine[][] = [];
  if (kind === "batch") {
    const byKey = new Map<string, SourceLine[]>();
    for (const job of selected) {
      for (const line of job.pickLineItems) {
        const key = JSON.stringify([line.article.tenantArticleId, line.measurementUnitKey ?? null]);
        let group = byKey.get(key);
        if (!group) {
          group = [];
          byKey.set(key, group);
          groups.push(group);
        }
        group.push({ job, line });
      }
    }
  } else {
    for (const job of selected) for (const line of job.pickLineItems) groups.push([{ job, line }]);
  }

  requireAtMost(groups.length, PICKING_LIMITS.pickRunLineItems, "pick run line items", "/pickJobRefs");
  const pickLineItems: PickRunLineItem[] = [];
  const lineSources: Record<string, RunLineSource[]> = {};
  for (const group of groups) {
    const id = ctx.newId();
    pickLineItems.push(buildRunLine(id, group, kind));
    lineSources[id] = group.map(({ job, line }) => ({
      pickJobRef: job.id,
      lineItemId: line.id,
      quantity: line.quantity,
    }));
  }

  const now = ctx.now.toISOString();
  const run: PickRun = {
    id: ctx.id,
    version: 1,
    created: now,
    lastModified: now,
    facilityRef: input.facilityRef,
    pickJobRefs: [...input.pickJobRefs],
    pickLineItems,
    pickRunType,
    status: "OPEN",
    editor: { ...ctx.user },
    lineSources,
  };
  const commands = run.pickJobRefs.map((pickJobRef) => ({
    pickJobRef,
    action: { name: "ATTACH_PICK_RUN", pickRunRef: run.id },
  }));
  return { run, commands, event: "PICK_RUN_CREATED" };
}

// ------------------------------------------------------------------------------------------------
// Changes

/** One job line's pending MODIFY_PICK_JOB_LINE_ITEMS fields (picked values are computed at flush). */
interface PendingLineUpdate {
  status?: PickLineItemStatus;
  shortPickReason?: JsonObject;
  partialStockLocations?: JsonObject[];
}

/** A change being built: a private clone of the run, the commands so far and the event. */
class Draft {
  readonly run: PickRun;
  readonly commands: JobCommand[] = [];
  event: PickRunEventType = "PICK_RUN_UPDATED";
  /** job -> job line -> pending update, for the next MODIFY_PICK_JOB_LINE_ITEMS commands. */
  private readonly pending = new Map<string, Map<string, PendingLineUpdate>>();

  readonly ctx: ActionContext;
  readonly jobStatuses: Readonly<Record<string, PickJobStatus>> | undefined;

  constructor(
    run: PickRun,
    ctx: ActionContext,
    jobStatuses: Readonly<Record<string, PickJobStatus>> | undefined,
  ) {
    this.run = clone(run);
    this.ctx = ctx;
    this.jobStatuses = jobStatuses;
  }

  command(pickJobRef: string, action: JsonObject) {
    this.commands.push({ pickJobRef, action });
  }

  touch(pickJobRef: string, lineItemId: string): PendingLineUpdate {
    let perJob = this.pending.get(pickJobRef);
    if (!perJob) {
      perJob = new Map();
      this.pending.set(pickJobRef, perJob);
    }
    let update = perJob.get(lineItemId);
    if (!update) {
      update = {};
      perJob.set(lineItemId, update);
    }
    return update;
  }

  /** Emits one MODIFY_PICK_JOB_LINE_ITEMS per touched job (in pickJobRefs order). */
  flush() {
    if (this.pending.size === 0) return;
    const totals = jobLineTotals(this.run);
    const order = [
      ...this.run.pickJobRefs.filter((r) => this.pending.has(r)),
      ...[...this.pending.keys()].filter((r) => !this.run.pickJobRefs.includes(r)),
    ];
    for (const pickJobRef of order) {
      const updates: JsonObject[] = [];
      for (const [lineItemId, pending] of this.pending.get(pickJobRef)!) {
        const total = totals.get(pickJobRef)?.get(lineItemId);
        const update: JsonObject = { id: lineItemId, picked: total?.picked ?? 0 };
        if (total?.secondaryPicked !== undefined) update["secondaryPicked"] = total.secondaryPicked;
        if (pending.status !== undefined) update["status"] = pending.status;
        if (pending.shortPickReason !== undefined) update["shortPickReason"] = clone(pending.shortPickReason);
        if (pending.partialStockLocations !== undefined) {
          update["partialStockLocations"] = clone(pending.partialStockLocations);
        }
        updates.push(update);
      }
      this.command(pickJobRef, { name: "MODIFY_PICK_JOB_LINE_ITEMS", pickJobLineItemUpdates: updates });
    }
    this.pending.clear();
  }

  done(): RunChange {
    this.flush();
    this.run.version += 1;
    this.run.lastModified = this.ctx.now.toISOString();
    this.run.editor = { ...this.ctx.user };
    return { run: this.run, commands: this.commands, event: this.event };
  }
}

function assertAllowed(action: string, status: PickRunStatus, from: readonly PickRunStatus[]) {
  if (!from.includes(status)) {
    throw precondition(
      "INVALID_TRANSITION",
      `Action ${action} is not possible for a pick run in status ${status}; it is possible in status ${from.join(", ")}.`,
    );
  }
}

function start(d: Draft) {
  d.flush();
  d.run.status = "IN_PROGRESS";
  d.event = "PICK_RUN_STARTED";
  for (const ref of d.run.pickJobRefs) {
    const status = d.jobStatuses?.[ref];
    // With known job statuses only jobs waiting to be picked are started.
    if (status === undefined || status === "OPEN" || status === "PAUSED") d.command(ref, { name: "START" });
    // Picking of a job begins (loadUnitAssignmentConfiguration.pickRun AT_START).
    if (status === undefined || status === "OPEN") requireLoadUnit(d.ctx, ref, "START", "pickRun");
  }
}

function finish(d: Draft) {
  d.flush();
  // Picking of every job ends (loadUnitAssignmentConfiguration.pickRun AT_END, DURING_PICKING).
  for (const ref of d.run.pickJobRefs) requireLoadUnit(d.ctx, ref, "END", "pickRun");
  const totals = jobLineTotals(d.run);
  for (const line of d.run.pickLineItems) line.status = "CLOSED";
  for (const ref of d.run.pickJobRefs) {
    const lineItems: JsonObject[] = [];
    for (const [id, total] of totals.get(ref) ?? []) {
      const item: JsonObject = { id, picked: total.picked };
      if (total.secondaryPicked !== undefined) item["secondaryPicked"] = total.secondaryPicked;
      lineItems.push(item);
    }
    d.command(ref, { name: "PICK", lineItems });
  }
  d.run.status = "CLOSED";
  d.event = "PICK_RUN_FINISHED";
}

function cancel(d: Draft) {
  d.flush();
  for (const ref of d.run.pickJobRefs) d.command(ref, { name: "DETACH_PICK_RUN" });
  d.run.status = "CANCELED";
  d.event = "PICK_RUN_CANCELED";
}

function removeJob(d: Draft, pickJobRef: string, field: string) {
  const run = d.run;
  if (!run.pickJobRefs.includes(pickJobRef)) {
    throw invalid(
      "PICK_JOB_NOT_IN_PICK_RUN",
      `Pick job ${pickJobRef} is not part of pick run ${run.id}.`,
      field,
    );
  }
  d.flush();
  const lines: PickRunLineItem[] = [];
  for (const line of run.pickLineItems) {
    const sources = run.lineSources[line.id] ?? [];
    const shares = sourceShares(line, sources);
    const removed = shares.filter((s) => s.source.pickJobRef === pickJobRef);
    if (removed.length === 0) {
      lines.push(line);
      continue;
    }
    const kept = sources.filter((s) => s.pickJobRef !== pickJobRef);
    if (kept.length === 0) {
      delete run.lineSources[line.id];
      continue;
    }
    const oldQuantity = line.quantity;
    line.quantity -= removed.reduce((a, s) => a + s.source.quantity, 0);
    line.picked -= removed.reduce((a, s) => a + s.picked, 0);
    if (line.secondaryPicked !== undefined) {
      line.secondaryPicked -= removed.reduce((a, s) => a + (s.secondaryPicked ?? 0), 0);
    }
    if (line.secondaryQuantity !== undefined) {
      line.secondaryQuantity = Math.round((line.secondaryQuantity * line.quantity) / oldQuantity);
    }
    run.lineSources[line.id] = kept;
    lines.push(line);
  }
  run.pickLineItems = lines;
  run.pickJobRefs = run.pickJobRefs.filter((r) => r !== pickJobRef);
  d.command(pickJobRef, { name: "DETACH_PICK_RUN" });
  if (run.pickJobRefs.length === 0) run.status = "OBSOLETE";
  d.event = "PICK_RUN_UPDATED";
}

function splitLines(d: Draft, infos: readonly JsonObject[]) {
  const run = d.run;
  infos.forEach((info, i) => {
    const field = `/splitLineItemsInfo/${i}`;
    const lineItemId = String(info["lineItemId"]);
    const quantity = Number(info["quantity"]);
    const picked = Number(info["picked"] ?? 0);
    const index = run.pickLineItems.findIndex((l) => l.id === lineItemId);
    if (index < 0) {
      throw invalid(
        "PICK_RUN_LINE_ITEM_NOT_FOUND",
        `Pick run ${run.id} has no line item ${lineItemId}.`,
        `${field}/lineItemId`,
      );
    }
    const line = run.pickLineItems[index]!;
    if (!Number.isInteger(quantity) || quantity < 1 || quantity >= line.quantity) {
      throw invalid(
        "INVALID_SPLIT_QUANTITY",
        `Line item ${lineItemId} has quantity ${line.quantity}; a split must take between 1 and ${line.quantity - 1} of it.`,
        `${field}/quantity`,
      );
    }
    if (!Number.isInteger(picked) || picked < 0 || picked > line.picked) {
      throw invalid(
        "INVALID_SPLIT_PICKED",
        `Line item ${lineItemId} has ${line.picked} picked; a split can take between 0 and ${line.picked} of it.`,
        `${field}/picked`,
      );
    }
    // The new line takes `quantity` from the END of the source list.
    const sources = run.lineSources[line.id] ?? [];
    const keep: RunLineSource[] = [];
    const take: RunLineSource[] = [];
    let toTake = quantity;
    for (let s = sources.length - 1; s >= 0; s--) {
      const source = sources[s]!;
      const n = Math.min(source.quantity, toTake);
      toTake -= n;
      if (n > 0) take.unshift({ ...source, quantity: n });
      if (source.quantity - n > 0) keep.unshift({ ...source, quantity: source.quantity - n });
    }

    const newLine: PickRunLineItem = clone(line);
    newLine.id = d.ctx.newId();
    newLine.originId = line.originId ?? line.id;
    newLine.quantity = quantity;
    newLine.picked = picked;
    const secondary = splitSecondary(line, quantity, picked);
    Object.assign(newLine, secondary.part);
    Object.assign(line, secondary.rest);
    line.quantity -= quantity;
    line.picked -= picked;
    run.lineSources[line.id] = keep;
    run.lineSources[newLine.id] = take;
    run.pickLineItems.splice(index + 1, 0, newLine);
  });
  requireStaysWithin(run.pickLineItems.length, PICKING_LIMITS.pickRunLineItems, "pick run line items");
  d.event = "PICK_RUN_UPDATED";
}

function runAction(d: Draft, name: PickRunActionName, action: JsonObject) {
  const rule = RUN_TRANSITIONS[name];
  assertAllowed(name, d.run.status, rule.from);
  switch (name) {
    case "START":
      return start(d);
    case "FINISH":
      return finish(d);
    case "CANCEL":
      return cancel(d);
    case "PAUSE":
    case "RESUME":
      d.run.status = rule.to!;
      d.event = rule.event;
      return;
    case "TAKE_OVER_PICK_RUN":
      requireEnabled(
        rulesOf(d.ctx).takeOverPickRun,
        "TAKE_OVER_PICK_RUN_DISABLED",
        "Taking over a pick run",
        "takeOverPickRunConfiguration",
      );
      d.run.editor = { ...d.ctx.user };
      d.event = rule.event;
      return;
    case "REMOVE_PICK_JOB": {
      const payload = (action["payload"] ?? {}) as JsonObject;
      return removeJob(d, String(payload["pickJobId"]), "/payload/pickJobId");
    }
    case "SPLIT_LINES_PICK_RUN":
      return splitLines(d, (action["splitLineItemsInfo"] ?? []) as JsonObject[]);
  }
}

const isRunAction = (name: unknown): name is PickRunActionName =>
  typeof name === "string" && (PICK_RUN_ACTIONS as readonly string[]).includes(name);

/**
 * POST /api/pickruns/{id}/actions (body = PickRunActionsParameter, version already checked).
 * `jobStatuses` (optional): the run's jobs' current statuses; when given, START only starts jobs
 * that are OPEN or PAUSED, otherwise START is emitted for every job.
 */
export function applyPickRunAction(
  run: PickRun,
  action: JsonObject,
  ctx: ActionContext,
  jobStatuses?: Readonly<Record<string, PickJobStatus>>,
): RunChange {
  const name = action["name"];
  if (!isRunAction(name)) {
    throw invalid("UNKNOWN_ACTION", `Unknown pick run action ${JSON.stringify(name)}.`, "/name");
  }
  const d = new Draft(run, ctx, jobStatuses);
  runAction(d, name, action);
  return d.done();
}

function modifyLine(d: Draft, action: JsonObject, field: string) {
  const run = d.run;
  // Allowed while the run is active; an OPEN run is started implicitly.
  assertAllowed("ModifyPickRunLineItem", run.status, ACTIVE_RUN_STATUSES);
  const id = String(action["id"]);
  const line = run.pickLineItems.find((l) => l.id === id);
  if (!line)
    throw invalid(
      "PICK_RUN_LINE_ITEM_NOT_FOUND",
      `Pick run ${run.id} has no line item ${id}.`,
      `${field}/id`,
    );
  if (run.status === "OPEN") start(d);

  const picked = action["picked"];
  if (typeof picked === "number") {
    line.picked = picked;
    line.pickedAt = d.ctx.now.toISOString();
  }
  const secondaryPicked = action["secondaryPicked"];
  if (typeof secondaryPicked === "number") line.secondaryPicked = secondaryPicked;
  const status = action["status"] as PickLineItemStatus | undefined;
  if (status !== undefined) line.status = status;
  // The run line records reasons and stock picks as a job line does (lines.ts), so what the run
  // accepts is what its jobs accept.
  const shortPickReason = action["shortPickReason"] as JsonObject | undefined;
  const reason = shortPickReason?.["reasonLocalized"] ?? action["shortPickReasonLocalized"];
  if (reason !== undefined) {
    const reasonField =
      shortPickReason?.["reasonLocalized"] !== undefined
        ? "shortPickReason/reasonLocalized"
        : "shortPickReasonLocalized";
    requireKnownShortPickReason(rulesOf(d.ctx), reason as Record<string, string>, `${field}/${reasonField}`);
    line.shortPickReason = toShortPickReason({ ...(reason as Record<string, string>) });
  }
  const psl = action["partialStockLocations"] as JsonObject[] | undefined;
  if (psl !== undefined) updateStockLocations(line, psl, `${field}/partialStockLocations`);

  const sources = run.lineSources[line.id] ?? [];
  for (const source of sources) {
    const pending = d.touch(source.pickJobRef, source.lineItemId);
    if (status !== undefined) pending.status = status;
    if (shortPickReason !== undefined) pending.shortPickReason = shortPickReason;
    // Stock locations are only known per job line when the run line has a single source.
    if (psl !== undefined && sources.length === 1) pending.partialStockLocations = psl;
  }
}

/**
 * The moments of picking a run change may reach, from its action names alone (the use case asks for
 * load units before applying it): START, FINISH, the PATCH's StartPickRun / FinishPickRun, and a
 * ModifyPickRunLineItem on an OPEN run (which starts it).
 */
export function pickRunMoments(run: PickRun, names: readonly unknown[]): PickingMoment[] {
  const moments = new Set<PickingMoment>();
  for (const name of names) {
    const mapped = typeof name === "string" ? (DEPRECATED_PATCH_ACTIONS[name] ?? name) : undefined;
    if (mapped === "START" || (mapped === "ModifyPickRunLineItem" && run.status === "OPEN"))
      moments.add("START");
    if (mapped === "FINISH") moments.add("END");
  }
  return [...moments];
}

/**
 * PATCH /api/pickruns/{id} (PickRunPatchAction.actions): ModifyPickRunLineItem and the deprecated
 * StartPickRun / CancelPickRun / FinishPickRun. The whole patch is one version increment.
 */
export function applyPickRunPatch(
  run: PickRun,
  actions: readonly JsonObject[],
  ctx: ActionContext,
  jobStatuses?: Readonly<Record<string, PickJobStatus>>,
): RunChange {
  const d = new Draft(run, ctx, jobStatuses);
  actions.forEach((action, i) => {
    const kind = action["action"];
    if (kind === "ModifyPickRunLineItem") {
      modifyLine(d, action, `/actions/${i}`);
      return;
    }
    const mapped = typeof kind === "string" ? DEPRECATED_PATCH_ACTIONS[kind] : undefined;
    if (!mapped) {
      throw invalid(
        "UNKNOWN_ACTION",
        `Unknown pick run patch action ${JSON.stringify(kind)}.`,
        `/actions/${i}/action`,
      );
    }
    runAction(d, mapped, action);
  });
  return d.done();
}

/** The deprecated PATCH /api/pickruns/{id}/pickjobs (RemovePickJobFromPickRun) = REMOVE_PICK_JOB. */
export function removePickJobFromRun(run: PickRun, pickJobRef: string, ctx: ActionContext): RunChange {
  const d = new Draft(run, ctx, undefined);
  assertAllowed("RemovePickJobFromPickRun", d.run.status, RUN_TRANSITIONS.REMOVE_PICK_JOB.from);
  removeJob(d, pickJobRef, "/actions/0/pickJobRef");
  return d.done();
}

/** The read model: everything except the internal lineSources. */
export function publicPickRun(run: PickRun): JsonObject {
  const { lineSources: _internal, ...rest } = run;
  return clone(rest) as unknown as JsonObject;
}
