/** The chaos run's table: one row per fault. */
import type { LedgerCounts } from "./ledger.ts";

export interface FaultRow extends LedgerCounts {
  fault: string;
  /** Requests per second of the load. */
  rate: number;
  /** Requests sent during the fault's phase (before, during and after it). */
  sent: number;
  /** Requests of the phase not answered 2xx, by status (0: connection failed, -1: timed out). */
  failed: Record<string, number>;
  /** From the fault until the last failed request of the phase was answered (0: none failed). */
  recoverMs: number;
  /** What was checked besides the counts (readiness seen going false and back, pids kept). */
  notes: string[];
}

const pad = (s: string, n: number, right = false) => (right ? s.padStart(n) : s.padEnd(n));

/** Statuses as "503 x4, 504 x1" ("-" for none). */
export function statusList(failed: Record<string, number>): string {
  const parts = Object.entries(failed)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${s === "0" ? "conn" : s === "-1" ? "timeout" : s} x${n}`);
  return parts.length ? parts.join(", ") : "-";
}

export function chaosTable(rows: FaultRow[]): string {
  const head = [
    "fault",
    "load/s",
    "sent",
    "failed",
    "statuses",
    "acked writes",
    "writes lost",
    "audit lost",
    "audit doubled",
    "webhooks lost",
    "recovered in",
  ];
  const body = rows.map((r) => [
    r.fault,
    String(r.rate),
    String(r.sent),
    String(Object.values(r.failed).reduce((a, b) => a + b, 0)),
    statusList(r.failed),
    String(r.acknowledged),
    String(r.lostWrites),
    String(r.auditLost),
    String(r.auditDoubled),
    String(r.webhooksLost),
    `${(r.recoverMs / 1000).toFixed(1)} s`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => pad(c, widths[i]!, i > 0 && i !== 4)).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}
