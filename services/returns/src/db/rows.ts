/** Reading and writing rows: the document plus the columns derived from it. Parameterised SQL only. */
import { type Db, query } from "@fop/kit/db/sql";
import type { Reason, ReasonAction } from "../domain/types.ts";

/** Inserts a reason unless its kind has one with the same text; true when inserted. */
export async function insertReasonIfNew(db: Db, tenant: string, r: Reason): Promise<boolean> {
  const rows = await query(db, {
    text: `insert into reason (tenant_id, id, action, version, reason, doc)
      values ($1, $2::uuid, $3, $4, $5, $6::jsonb) on conflict (tenant_id, action, reason) do nothing returning 1`,
    params: [tenant, r.id, r.action, r.version, r.reason, JSON.stringify(r)],
    prepare: true,
  });
  return rows.length > 0;
}

export async function loadReason(
  db: Db,
  tenant: string,
  action: ReasonAction,
  id: string,
  forUpdate = false,
): Promise<Reason | undefined> {
  const rows = await query<{ doc: Reason }>(db, {
    text: `select doc from reason where tenant_id = $1 and action = $2 and id = $3::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, action, id],
    prepare: true,
  });
  return rows[0]?.doc;
}

export async function loadReasonByText(
  db: Db,
  tenant: string,
  action: ReasonAction,
  reason: string,
): Promise<Reason | undefined> {
  const rows = await query<{ doc: Reason }>(db, {
    text: "select doc from reason where tenant_id = $1 and action = $2 and reason = $3",
    params: [tenant, action, reason],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** One page by id (creation order), one more row to tell whether a next page exists, and the count. */
export async function listReasons(
  db: Db,
  tenant: string,
  action: ReasonAction,
  page: { size: number; startAfterId: string },
): Promise<{ rows: Reason[]; hasNextPage: boolean; total: number }> {
  const [rows, count] = await Promise.all([
    query<{ doc: Reason }>(db, {
      text: `select doc from reason where tenant_id = $1 and action = $2 and ($3::uuid is null or id > $3::uuid)
        order by id limit $4`,
      params: [tenant, action, page.startAfterId || null, page.size + 1],
      prepare: true,
    }),
    query<{ total: string }>(db, {
      text: "select count(*) as total from reason where tenant_id = $1 and action = $2",
      params: [tenant, action],
      prepare: true,
    }),
  ]);
  return {
    rows: rows.slice(0, page.size).map((r) => r.doc),
    hasNextPage: rows.length > page.size,
    total: Number(count[0]?.total ?? 0),
  };
}

/** Writes a changed reason (its version was checked under the row lock). */
export async function updateReason(db: Db, tenant: string, r: Reason): Promise<void> {
  await query(db, {
    text: "update reason set version = $3, reason = $4, doc = $5::jsonb where tenant_id = $1 and id = $2::uuid",
    params: [tenant, r.id, r.version, r.reason, JSON.stringify(r)],
    prepare: true,
  });
}

export async function deleteReason(db: Db, tenant: string, id: string): Promise<void> {
  await query(db, {
    text: "delete from reason where tenant_id = $1 and id = $2::uuid",
    params: [tenant, id],
    prepare: true,
  });
}
