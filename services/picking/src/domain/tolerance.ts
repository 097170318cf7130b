/**
 * measurementValidation: how far a recorded pick may deviate from the ordered quantity, in percent of
 * it: deviation % = (picked - quantity) / quantity * 100. The secondary pair (e.g. grams of a weighed
 * article) is measured the same way against secondaryQuantity, when both secondaryQuantity and
 * secondaryPicked are present.
 *
 * - Over pick above `overPickHardTolerancePercentage` (0 when the line has a measurementValidation
 *   without one): 422 OVERPICK_TOLERANCE_EXCEEDED. Above the soft tolerance (0 when unset) but within
 *   the hard one: accepted and reported as `soft` (the caller may ignore it).
 * - A line without measurementValidation may not be over-picked at all: 422 OVERPICK_NOT_ALLOWED.
 * - Short picks are only judged when the line is closed (`closing`): shortfall above
 *   `shortPickHardTolerancePercentage` is 422 SHORTPICK_TOLERANCE_EXCEEDED, above the soft one it is
 *   `soft`. Without measurementValidation or without a short-pick hard tolerance, any short pick is
 *   allowed (the normal short-pick flow: the job closes with subStatus SHORT_PICKED).
 */
import { precondition } from "@fop/kit/errors";
import type { MeasurementValidation, PickLineItem } from "./types.ts";

/** What a tolerance check needs of a line (pick lines and substitute lines alike). */
export type MeasuredLine = Pick<
  PickLineItem,
  "id" | "quantity" | "secondaryQuantity" | "measurementValidation"
>;

const deviation = (picked: number, quantity: number) => ((picked - quantity) / quantity) * 100;
const pct = (d: number) => `${Number(d.toFixed(2))} %`;

function checkOverPick(
  lineId: string,
  what: string,
  picked: number,
  quantity: number,
  mv: MeasurementValidation | undefined,
): boolean {
  const over = deviation(picked, quantity);
  if (over <= 0) return false;
  if (!mv) {
    throw precondition(
      "OVERPICK_NOT_ALLOWED",
      `Line ${lineId}: ${what} ${picked} exceeds the ordered ${quantity}, and the line has no measurementValidation, so it may not be over-picked.`,
    );
  }
  const hard = mv.overPickHardTolerancePercentage ?? 0;
  if (over > hard) {
    const max = Math.floor(quantity * (1 + hard / 100) + 1e-9);
    throw precondition(
      "OVERPICK_TOLERANCE_EXCEEDED",
      `Line ${lineId}: ${what} ${picked} of ${quantity} is ${pct(over)} over; at most ${pct(hard)} is allowed (${what} at most ${max}).`,
    );
  }
  return over > (mv.overPickSoftTolerancePercentage ?? 0);
}

function checkShortPick(
  lineId: string,
  what: string,
  picked: number,
  quantity: number,
  mv: MeasurementValidation | undefined,
): boolean {
  const short = -deviation(picked, quantity);
  const hard = mv?.shortPickHardTolerancePercentage;
  if (short <= 0 || hard === undefined) return false;
  if (short > hard) {
    const min = Math.ceil(quantity * (1 - hard / 100) - 1e-9);
    throw precondition(
      "SHORTPICK_TOLERANCE_EXCEEDED",
      `Line ${lineId}: ${what} ${picked} of ${quantity} is ${pct(short)} short; at most ${pct(hard)} is allowed (${what} at least ${min}).`,
    );
  }
  return short > (mv?.shortPickSoftTolerancePercentage ?? 0);
}

function checkPair(
  lineId: string,
  what: string,
  picked: number,
  quantity: number,
  mv: MeasurementValidation | undefined,
  closing: boolean,
): boolean {
  if (quantity <= 0) return false;
  const overSoft = checkOverPick(lineId, what, picked, quantity, mv);
  const shortSoft = closing && checkShortPick(lineId, what, picked, quantity, mv);
  return overSoft || shortSoft;
}

/**
 * Checks a recorded pick of `line`: `picked` against `quantity` and, when given and the line has a
 * secondaryQuantity, `secondaryPicked` against `secondaryQuantity`. `closing` = the line is (being)
 * closed, which is when short picks are judged. Throws 422 on a hard violation.
 */
export function checkPicked(
  line: MeasuredLine,
  picked: number,
  secondaryPicked: number | undefined,
  closing: boolean,
): { soft: boolean } {
  const mv = line.measurementValidation;
  let soft = checkPair(line.id, "picked", picked, line.quantity, mv, closing);
  if (secondaryPicked !== undefined && line.secondaryQuantity !== undefined) {
    soft =
      checkPair(line.id, "secondaryPicked", secondaryPicked, line.secondaryQuantity, mv, closing) || soft;
  }
  return { soft };
}
