/**
 * The whole transition tables, every status x every action, against matrices written out here by
 * hand (not derived from the tables under test): "-" means 422 INVALID_TRANSITION.
 */
import { describe, expect, it } from "vitest";
import {
  ITEM_RETURN_STATUSES,
  type ItemReturnStatus,
  isClosedLine,
  itemReturnTransition,
  JOB_STATUSES,
  type JobStatus,
  jobTransition,
  LINE_STATUSES,
  type LineStatus,
  lineTransition,
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
  const EXPECTED: Record<JobStatus, string[]> = {
    //            Start          Finish      Restart
    OPEN: ["IN_PROGRESS", "FINISHED", "-"],
    IN_PROGRESS: ["-", "FINISHED", "-"],
    FINISHED: ["-", "-", "IN_PROGRESS"],
    CANCELED: ["-", "-", "-"],
  };
  it.each(JOB_STATUSES)("from %s", (status) => {
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
  const EXPECTED: Record<LineStatus, LineStatus[]> = {
    OPEN: [...LINE_STATUSES],
    IN_PROGRESS: [...LINE_STATUSES],
    WAITING_FOR_INPUT: [...LINE_STATUSES],
    REJECTED: ["REJECTED"],
    ACCEPTED: ["ACCEPTED"],
    CANCELED: ["CANCELED"],
  };
  it.each(LINE_STATUSES)("from %s", (from) => {
    const reachable = LINE_STATUSES.filter((to) => outcome(() => lineTransition(from, to)) !== "-");
    expect(reachable).toEqual(EXPECTED[from]);
  });
  it("ACCEPTED, REJECTED and CANCELED are the closed ones", () => {
    expect(LINE_STATUSES.filter(isClosedLine)).toEqual(["REJECTED", "ACCEPTED", "CANCELED"]);
  });
});
