import { expect, it } from "vitest";
import { upsertSingleton } from "./singleton.ts";

/** An in-memory store; `raced` plays a concurrent first write that inserted just before ours. */
const store = (initial?: number, raced?: number) => {
  let value = initial;
  return {
    get: () => value,
    ops: {
      load: async () => value,
      insertIfAbsent: async (v: number) => {
        if (raced !== undefined) {
          value = raced;
          return false;
        }
        value = v;
        return true;
      },
      update: async (v: number) => {
        value = v;
      },
    },
  };
};

it("the first write creates; later ones update what is there", async () => {
  const s = store();
  expect(await upsertSingleton(s.ops, (cur) => (cur ?? 0) + 1)).toEqual({ value: 1, created: true });
  expect(await upsertSingleton(s.ops, (cur) => (cur ?? 0) + 1)).toEqual({ value: 2, created: false });
  expect(s.get()).toBe(2);
});

it("a first write that loses the insert race becomes an update of the winner's value", async () => {
  const s = store(undefined, 10);
  const seen: (number | undefined)[] = [];
  const result = await upsertSingleton(s.ops, (cur) => {
    seen.push(cur);
    return (cur ?? 0) + 1;
  });
  expect(seen).toEqual([undefined, 10]);
  expect(result).toEqual({ value: 11, created: false });
});
