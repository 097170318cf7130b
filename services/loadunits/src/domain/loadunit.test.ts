import { describe, expect, it } from "vitest";
import {
  checkLoadUnitPatch,
  createLoadUnit,
  localizeLoadUnit,
  obsoleteLoadUnit,
  patchLoadUnit,
  selectForBulkDelete,
  UPDATE_RECORDABLE_ATTRIBUTES,
  uniquePickJobRefs,
  updateRecordableAttributes,
} from "./loadunit.ts";
import type { ChangeContext, ContainerType, LoadUnit } from "./types.ts";

let n = 0;
const c: ChangeContext = {
  now: new Date("2026-11-25T10:00:00.000Z"),
  newId: () => `id-${++n}`,
  defaultLocale: "en_US",
};
const later: ChangeContext = { ...c, now: new Date("2026-11-25T11:00:00.000Z") };
const box: ContainerType = {
  id: "t1",
  version: 1,
  created: "x",
  lastModified: "x",
  nameLocalized: { en_US: "Box", de_DE: "Kiste" },
  dimensions: { heightInCm: 5 },
  weightLimitInG: 100,
};
const unit = (overrides: Record<string, unknown> = {}): LoadUnit =>
  createLoadUnit(
    {
      codes: ["C"],
      status: "OBSOLETE",
      facilityRef: "client-facility",
      loadUnitLineItems: [
        {
          article: { tenantArticleId: "A", title: "T" },
          recordableAttributes: [
            { keyLocalized: { en_US: "Lot", de_DE: "Charge" }, recordingRule: "OPTIONAL" },
          ],
        },
      ],
      ...overrides,
    },
    { id: "u1", facilityRef: "f1", pickJobRefs: ["j1"], type: box },
    c,
  );

describe("creating a load unit", () => {
  it("takes status and facility from the service, names and sizes from its type, ids for items and attributes", () => {
    const u = unit();
    expect(u).toMatchObject({
      id: "u1",
      version: 1,
      status: "AVAILABLE",
      facilityRef: "f1",
      pickJobRefs: ["j1"],
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      name: "Box",
      nameLocalized: box.nameLocalized,
      dimensions: { heightInCm: 5 },
      weightLimitInG: 100,
      codes: ["C"],
    });
    const item = u.loadUnitLineItems![0]!;
    expect(item.id).toMatch(/^id-/);
    expect(item.recordableAttributes![0]).toMatchObject({ id: expect.stringMatching(/^id-/), key: "Lot" });
  });

  it("without a type: an empty nameLocalized and no name", () => {
    const u = createLoadUnit({}, { id: "u", facilityRef: "f", pickJobRefs: ["j"] }, c);
    expect(u.nameLocalized).toEqual({});
    expect(u).not.toHaveProperty("name");
  });

  it("pick job refs: each once, at least one", () => {
    expect(uniquePickJobRefs({ pickJobRefs: ["a", "b", "a"] })).toEqual(["a", "b"]);
    expect(() => uniquePickJobRefs({ pickJobRefs: [] })).toThrow(/at least one/);
    expect(() => uniquePickJobRefs({})).toThrow(/at least one/);
  });
});

describe("locale", () => {
  it("re-resolves name and attribute keys for a requested locale", () => {
    const de = localizeLoadUnit(unit(), "de_DE", "en_US");
    expect(de.name).toBe("Kiste");
    expect(de.loadUnitLineItems![0]!.recordableAttributes![0]!.key).toBe("Charge");
    expect(localizeLoadUnit(unit(), "de-DE", "en_US").name).toBe("Kiste");
    expect(localizeLoadUnit(unit(), "fr_FR", "en_US").name).toBe("Box");
  });
});

describe("soft delete", () => {
  it("AVAILABLE -> OBSOLETE with a new version; OBSOLETE stays as it is", () => {
    const first = obsoleteLoadUnit(unit(), later);
    expect(first).toMatchObject({
      changed: true,
      unit: { status: "OBSOLETE", version: 2, lastModified: "2026-11-25T11:00:00.000Z" },
    });
    expect(obsoleteLoadUnit(first.unit, later)).toEqual({ unit: first.unit, changed: false });
  });
});

describe("PATCH", () => {
  it("ReplaceLoadUnitLineItems replaces the items (the last action wins)", () => {
    const items = [{ id: "L1", article: { tenantArticleId: "B", title: "U" } }];
    const next = patchLoadUnit(
      unit(),
      {
        version: 1,
        actions: [
          { action: "ReplaceLoadUnitLineItems", loadUnitLineItems: [] },
          { action: "ReplaceLoadUnitLineItems", loadUnitLineItems: items },
        ],
      },
      later,
    );
    expect(next).toMatchObject({ version: 2, loadUnitLineItems: items });
  });

  it("refuses duplicate line item ids and unknown actions", () => {
    const item = { id: "L", article: { tenantArticleId: "B", title: "U" } };
    expect(() =>
      patchLoadUnit(
        unit(),
        { actions: [{ action: "ReplaceLoadUnitLineItems", loadUnitLineItems: [item, item] }] },
        later,
      ),
    ).toThrow(/appears twice/);
    expect(() => patchLoadUnit(unit(), { actions: [{ action: "Other" }] }, later)).toThrow(
      /ReplaceLoadUnitLineItems/,
    );
  });

  it("a partial body changes only what may change; null clears; status/facility/pick jobs stay", () => {
    const next = patchLoadUnit(
      unit({ stackRef: "s1" }),
      {
        codes: ["N"],
        stackRef: null,
        status: "OBSOLETE",
        facilityRef: "x",
        pickJobRefs: ["z"],
        nameLocalized: { en_US: "Crate" },
      },
      later,
    );
    expect(next).toMatchObject({
      codes: ["N"],
      status: "AVAILABLE",
      facilityRef: "f1",
      pickJobRefs: ["j1"],
      name: "Crate",
    });
    expect(next).not.toHaveProperty("stackRef");
  });

  it("a body is LoadUnitPatchActions or a whole LoadUnit, with a version: else a 400 naming the field", () => {
    const whole = { ...unit(), version: 1 } as unknown as Record<string, unknown>;
    const replace = (loadUnitLineItems: unknown[]) => ({
      action: "ReplaceLoadUnitLineItems",
      loadUnitLineItems,
    });
    const item = { id: "L", article: { tenantArticleId: "B", title: "U" } };
    const cases: [string, Record<string, unknown>, string | undefined][] = [
      ["actions", { version: 1, actions: [replace([item])] }, undefined],
      ["actions, no version", { actions: [replace([item])] }, "/version"],
      [
        "a misspelled action",
        { version: 1, actions: [{ ...replace([]), action: "ReplaceLoadUnitLineItem" }] },
        "/actions/0/action",
      ],
      [
        "a line item without id",
        { version: 1, actions: [replace([item]), replace([{ article: item.article }])] },
        "/actions/1/loadUnitLineItems/0/id",
      ],
      [
        "no line items",
        { version: 1, actions: [{ action: "ReplaceLoadUnitLineItems" }] },
        "/actions/0/loadUnitLineItems",
      ],
      ["empty actions", { version: 1, actions: [] }, "/actions"],
      ["a whole load unit", { ...whole, codes: ["N"] }, undefined],
      ["loose fields", { codes: ["N"] }, "/id"],
      ["loose fields with a version", { version: 1, codes: ["N"] }, "/id"],
      ["a whole load unit without version", { ...whole, version: undefined }, "/version"],
      ["a whole load unit without status", { ...whole, status: undefined }, "/status"],
      ["another unit's id", { ...whole, id: "u2" }, "/id"],
      [
        "a whole load unit, a line item without id",
        { ...whole, loadUnitLineItems: [{ quantity: 1 }] },
        "/loadUnitLineItems/0/id",
      ],
    ];
    for (const [what, body, field] of cases) {
      const run = () => checkLoadUnitPatch("u1", body as never);
      if (field === undefined) expect(run, what).not.toThrow();
      else expect(run, what).toThrow(expect.objectContaining({ kind: "invalid", field }));
    }
  });

  it("an OBSOLETE unit cannot be changed (422)", () => {
    const gone = obsoleteLoadUnit(unit(), later).unit;
    expect(() => patchLoadUnit(gone, { codes: [] }, later)).toThrow(
      expect.objectContaining({ kind: "precondition" }),
    );
  });
});

describe("UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES", () => {
  it("overwrites the given fields of the named attributes", () => {
    const u = unit();
    const id = u.loadUnitLineItems![0]!.recordableAttributes![0]!.id;
    const next = updateRecordableAttributes(
      u,
      {
        name: UPDATE_RECORDABLE_ATTRIBUTES,
        recordableAttributes: [{ recordableAttributeId: id, value: "L-7", recordingRule: "MANDATORY" }],
      },
      later,
    );
    expect(next.version).toBe(2);
    expect(next.loadUnitLineItems![0]!.recordableAttributes![0]).toMatchObject({
      id,
      value: "L-7",
      recordingRule: "MANDATORY",
      key: "Lot",
    });
  });

  it("an unknown attribute, a repeated one or another action name is a 400; nothing changes", () => {
    const u = unit();
    const id = u.loadUnitLineItems![0]!.recordableAttributes![0]!.id;
    expect(() =>
      updateRecordableAttributes(
        u,
        { name: UPDATE_RECORDABLE_ATTRIBUTES, recordableAttributes: [{ recordableAttributeId: "nope" }] },
        later,
      ),
    ).toThrow(/no recordable attribute/);
    expect(() =>
      updateRecordableAttributes(
        u,
        {
          name: UPDATE_RECORDABLE_ATTRIBUTES,
          recordableAttributes: [{ recordableAttributeId: id }, { recordableAttributeId: id }],
        },
        later,
      ),
    ).toThrow(/named twice/);
    expect(() => updateRecordableAttributes(u, { name: "OTHER", recordableAttributes: [] }, later)).toThrow(
      /Unknown action/,
    );
  });
});

describe("bulk delete selection", () => {
  const a = { ...unit(), id: "a", pickJobRefs: ["j1"] };
  const b = { ...unit(), id: "b", pickJobRefs: ["j2"] };
  const gone = { ...obsoleteLoadUnit(unit(), later).unit, id: "g", pickJobRefs: ["j1"] };

  it("only a pick job: its AVAILABLE units", () => {
    expect(selectForBulkDelete("j1", [], [a, gone]).map((u) => u.id)).toEqual(["a"]);
  });
  it("ids (with or without a pick job): exactly those", () => {
    expect(selectForBulkDelete("", ["a", "b", "a"], [a, b]).map((u) => u.id)).toEqual(["a", "b"]);
    expect(selectForBulkDelete("j1", ["a"], [a]).map((u) => u.id)).toEqual(["a"]);
  });
  it("nothing named: 400; an unknown id: 404; another job's unit or an OBSOLETE one: 422", () => {
    expect(() => selectForBulkDelete("", [], [])).toThrow(expect.objectContaining({ kind: "invalid" }));
    expect(() => selectForBulkDelete("", ["x"], [a])).toThrow(expect.objectContaining({ kind: "not_found" }));
    expect(() => selectForBulkDelete("j1", ["a", "b"], [a, b])).toThrow(
      expect.objectContaining({ kind: "precondition", code: "LOAD_UNIT_NOT_OF_PICK_JOB" }),
    );
    expect(() => selectForBulkDelete("", ["g"], [gone])).toThrow(
      expect.objectContaining({ kind: "precondition", code: "LOAD_UNIT_ALREADY_OBSOLETE" }),
    );
  });
});
