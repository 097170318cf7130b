/**
 * 300 random malformed requests against the carrier routes (carriers and their PATCH, the
 * configuration's GET and PUT, country service mappings, transit time): each is answered with a
 * 2xx/4xx and the platform's error body, never a 5xx, and never with a credential secret. Bodies
 * are valid ones with one random change (`mutate`), so they get past the first check and into the
 * deeper ones. Afterwards the configuration's version still counts its writes. Seeded (FUZZ_SEED).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzRequest, fuzz, FUZZ_SEED as SEED, sendAll } from "../support/fuzz.ts";
import { type System, startSystem } from "../support/system.ts";

const SECRET = "fuzz-secret-7f3a";

let sys: System;
let token: string;
let carrier: any;
let mapping: any;

beforeAll(async () => {
  sys = await startSystem();
  token = await sys.token("fuzz", { roles: ["ADMIN"] });
  const api = sys.as(token);
  carrier = (
    await api("POST", "/api/carriers", {
      key: "CUSTOM_FUZZ",
      name: "Fuzz",
      credentials: { key: "CUSTOM_FUZZ", password: SECRET },
    })
  ).body;
  mapping = (
    await api("POST", `/api/carriers/${carrier.id}/configuration/countryservicemappings`, {
      carrierConfigurationVersion: 1,
      source: { countryCode: "DE" },
      destinations: [{ countryCode: "DE" }],
      transitTime: { minTransitDays: 1, maxTransitDays: 2 },
    })
  ).body;
});
afterAll(() => sys?.close());

describe(`fuzzing the carrier routes (seed ${SEED})`, () => {
  it("300 malformed requests, no 5xx, no secret; versions still count the writes", async () => {
    const { int, pick, weird, mutate } = fuzz(SEED, [carrier.id, mapping.id]);
    const idLike = () =>
      pick([
        carrier.id,
        mapping.id,
        "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
        "x",
        "urn:fft:carrier:key:GLS",
        String(weird()),
      ]);
    const carrierPath = () =>
      `/api/carriers/${encodeURIComponent(String(pick([carrier.id, carrier.id, idLike()])))}`;
    const mappings = () => `${carrierPath()}/configuration/countryservicemappings`;
    const time = () => pick(["12:00", "00:00", "23:59", "24:00", "24:30", "7:00", "12:60", "", weird()]);
    const region = () => ({
      countryCode: pick(["DE", "AT", "de", "DEU", ""]),
      postalCodes: pick([undefined, ["1"], []]),
    });
    const version = () => int(6);

    const requests: FuzzRequest[] = Array.from({ length: 300 }, () => {
      switch (int(10)) {
        case 0:
          return {
            method: "POST",
            path: "/api/carriers",
            body: mutate({
              key: pick(["GLS", "UPS", "CUSTOM_A", "CUSTOM_", "FOO", "CUSTOM_FUZZ"]),
              name: "C",
              credentials: { key: "GLS", password: SECRET },
              defaultParcelWidthInCm: pick([1, 0, 35, 1e308]),
            }),
          };
        case 1:
          return {
            method: "PATCH",
            path: carrierPath(),
            body: mutate({
              version: version(),
              actions: [
                {
                  action: pick(["ModifyCarrier", "ModifyFacility"]),
                  name: "N",
                  status: pick(["ACTIVE", "INACTIVE", "DEAD"]),
                  credentials: { key: pick(["CUSTOM_FUZZ", "GLS"]), password: SECRET },
                },
              ],
            }),
          };
        case 2:
          return {
            method: "GET",
            path: `${pick(["/api/carriers", carrierPath()])}?${pick(["size", "startAfterId"])}=${encodeURIComponent(String(weird()))}`,
          };
        case 3:
          return {
            method: "PUT",
            path: `${carrierPath()}/configuration`,
            body: mutate({
              version: version(),
              carrierRef: pick([carrier.id, idLike()]),
              returnLabel: pick([true, false]),
              defaultPickUpTime: {
                start: { hour: int(25), minute: int(61) },
                end: { hour: int(25), minute: 0 },
              },
              nonDeliveryDaysPerCountryAndProvince: [
                {
                  country: "DE",
                  nonDeliveryDays: [
                    { nonDeliveryDay: pick(["2026-12-25", "2026-02-30", "2026-12-25T00:00:00Z", "x"]) },
                  ],
                  recurringNonDeliveryWeekdays: [pick(["SUNDAY", "FUNDAY"])],
                  nonDeliveryDaysPerProvince: [],
                },
              ],
              countryServiceMappings: [
                {
                  id: pick(["a", mapping.id, ""]),
                  source: region(),
                  destinations: [region()],
                  countAsTransitDayBefore: time(),
                  transitTime: { minTransitDays: int(4), maxTransitDays: int(4) },
                },
              ],
              thresholdPriceValue: {
                priority: 1,
                priceRange: { from: int(3), to: int(3) + 1, currency: "EUR", decimalPlaces: 2 },
              },
            }),
          };
        case 4:
          return {
            method: "POST",
            path: mappings(),
            body: mutate({
              carrierConfigurationVersion: version(),
              source: region(),
              destinations: [region(), region()],
              sourceCountry: pick([undefined, "AT", "X"]),
              destinationCountries: pick([undefined, ["CH"], []]),
              countAsTransitDayBefore: time(),
              transitTime: { minTransitDays: int(4), maxTransitDays: int(4) },
              deliveryCosts: [{ cost: 1.5, currency: "EUR" }],
            }),
          };
        case 5:
          return {
            method: "PATCH",
            path: `${mappings()}/${encodeURIComponent(String(pick([mapping.id, idLike()])))}`,
            body: mutate({
              carrierConfigurationVersion: version(),
              countAsTransitDayBefore: time(),
              products: ["P"],
            }),
          };
        case 6:
          return {
            method: pick(["GET", "GET", "DELETE"]),
            path: `${mappings()}/${encodeURIComponent(String(pick([mapping.id, idLike()])))}`,
          };
        case 7:
          return {
            method: "PUT",
            path: "/api/configurations/transittime",
            body: mutate({
              version: version(),
              calculationStrategy: pick(["EARLIEST", "LATEST", "FASTEST"]),
            }),
          };
        case 8:
          return {
            method: "GET",
            path: pick([mappings(), `${carrierPath()}/configuration`, "/api/configurations/transittime"]),
          };
        default:
          return {
            method: pick(["POST", "PATCH", "PUT"]),
            path: pick([
              "/api/carriers",
              carrierPath(),
              `${carrierPath()}/configuration`,
              mappings(),
              "/api/configurations/transittime",
            ]),
            body: pick(["{", "[1,2", "null", '"str"', "1e999", '{"version":}', "\u0000"]),
            headers: { "content-type": pick(["application/json", "text/plain", ""]) },
          };
      }
    });

    const { failures, classes } = await sendAll(sys, token, requests, (res) =>
      res.text.includes(SECRET) ? "shows a credential secret" : undefined,
    );
    console.log(`seed ${SEED}: ${JSON.stringify(classes)}`);
    expect(failures, `seed ${SEED}`).toEqual([]);
    expect(classes["2xx"] ?? 0, `seed ${SEED}`).toBeGreaterThan(5);

    // The system still works, and the configuration's version counts the writes it took: one
    // more write on the version it shows succeeds and moves it by exactly one.
    const api = sys.as(token);
    const config = await api("GET", `/api/carriers/${carrier.id}/configuration`);
    expect(config.status, config.text).toBe(200);
    const added = await api("POST", `/api/carriers/${carrier.id}/configuration/countryservicemappings`, {
      carrierConfigurationVersion: config.body.version,
      source: { countryCode: "DE" },
      destinations: [{ countryCode: "PL" }],
    });
    expect(added.status, added.text).toBe(201);
    const after = (await api("GET", `/api/carriers/${carrier.id}/configuration`)).body;
    expect(after.version).toBe(config.body.version + 1);
    expect(after.countryServiceMappings.map((m: any) => m.id)).toContain(added.body.id);
    expect((await api("GET", `/api/carriers/${carrier.id}`)).text).not.toContain(SECRET);
  });
});
