/**
 * The whole transition tables, every status x every action, against matrices written out here by
 * hand (not derived from the tables under test): "-" means 422 INVALID_TRANSITION.
 */
import { describe, expect, it } from "vitest";
import {
  ITEM_RETURN_JOB_STATUSES,
  ITEM_RETURN_STATUSES,
  type ItemReturnJobStatus,
  type ItemReturnStatus,
  isClosedLine,
  itemReturnTransition,
  jobTransition,
  lineTransition,
  RETURNED_LINE_ITEM_STATUSES,
  type ReturnedLineItemStatus,
} from "./states.ts";

const outcome = (f: () => string) => {
  try {
    return f();
  } catch (e) {
    expect(e).toMatchObject({ kind: "precondition", code: "INVALID_TRANSITION" });
    return "-";
  }
};

describe("item return job", () => {
  const ACTIONS = ["StartItemReturnJob", "FinishItemReturnJob", "RestartItemReturnJob"];
  const EXPECTED: Record<ItemReturnJobStatus, string[]> = {
    //            Start          Finish      Restart
    OPEN: ["IN_PROGRESS", "FINISHED", "-"],
    IN_PROGRESS: ["-", "FINISHED", "-"],
    FINISHED: ["-", "-", "IN_PROGRESS"],
    CANCELED: ["-", "-", "-"],
  };
  it.each(ITEM_RETURN_JOB_STATUSES)("from %s", (status) => {
    expect(ACTIONS.map((a) => outcome(() => jobTransition(status, a)))).toEqual(EXPECTED[status]);
  });
  it("names what is possible, or that the status is final; unknown actions are refused", () => {
    expect(() => jobTransition("OPEN", "RestartItemReturnJob")).toThrow(
      /needs FINISHED\. Possible now: StartItemReturnJob, FinishItemReturnJob/,
    );
    expect(() => jobTransition("CANCELED", "StartItemReturnJob")).toThrow(/CANCELED is final/);
    expect(() => jobTransition("OPEN", "toString")).toThrow(
      expect.objectContaining({ code: "UNKNOWN_ACTION" }),
    );
    expect(() => jobTransition("OPEN", "CancelItemReturn")).toThrow(
      expect.objectContaining({ code: "UNKNOWN_ACTION" }),
    );
  });
});

describe("item return", () => {
  const ACTIONS = [
    "AnnounceItemReturn",
    "OpenItemReturn",
    "StartItemReturn",
    "PauseItemReturn",
    "WaitForInputItemReturn",
    "FinishItemReturn",
    "CancelItemReturn",
  ];
  const A = "ANNOUNCED";
  const O = "OPEN";
  const I = "IN_PROGRESS";
  const P = "PAUSED";
  const W = "WAITING_FOR_INPUT";
  const F = "FINISHED";
  const C = "CANCELED";
  const EXPECTED: Record<ItemReturnStatus, string[]> = {
    //                  Announce Open Start Pause Wait Finish Cancel
    ANNOUNCED: ["-", O, I, "-", "-", "-", C],
    OPEN: [A, "-", I, "-", "-", F, C],
    IN_PROGRESS: ["-", "-", "-", P, W, F, C],
    PAUSED: ["-", "-", I, "-", W, F, C],
    WAITING_FOR_INPUT: ["-", "-", I, "-", "-", F, C],
    FINISHED: ["-", "-", "-", "-", "-", "-", "-"],
    CANCELED: ["-", "-", "-", "-", "-", "-", "-"],
    OBSOLETE: ["-", "-", "-", "-", "-", "-", "-"],
  };
  it.each(ITEM_RETURN_STATUSES)("from %s", (status) => {
    expect(ACTIONS.map((a) => outcome(() => itemReturnTransition(status, a)))).toEqual(EXPECTED[status]);
  });
});

describe("line item", () => {
  const EXPECTED: Record<ReturnedLineItemStatus, ReturnedLineItemStatus[]> = {
    OPEN: [...RETURNED_LINE_ITEM_STATUSES],
    IN_PROGRESS: [...RETURNED_LINE_ITEM_STATUSES],
    WAITING_FOR_INPUT: [...RETURNED_LINE_ITEM_STATUSES],
    REJECTED: ["REJECTED"],
    ACCEPTED: ["ACCEPTED"],
    CANCELED: ["CANCELED"],
  };
  it.each(RETURNED_LINE_ITEM_STATUSES)("from %s", (from) => {
    const reachable = RETURNED_LINE_ITEM_STATUSES.filter(
      (to) => outcome(() => lineTransition(from, to)) !== "-",
    );
    expect(reachable).toEqual(EXPECTED[from]);
  });
  it("ACCEPTED, REJECTED and CANCELED are the closed ones", () => {
    expect(RETURNED_LINE_ITEM_STATUSES.filter(isClosedLine)).toEqual(["REJECTED", "ACCEPTED", "CANCELED"]);
  });
});
