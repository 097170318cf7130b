/** Test data shared by the system tests and the benchmark's seed. */

/** A facility address the reference accepts (its example store). */
export const facilityAddress = {
  companyName: "ACME",
  street: "Hauptstr.",
  houseNumber: "42a",
  postalCode: "40764",
  city: "Langenfeld",
  country: "DE",
};

/** A pick job as a shop's order system sends it (values from the reference's examples). */
export function pickJobBody(facilityId: string, overrides: Record<string, unknown> = {}) {
  return {
    facilityRef: facilityId,
    orderDate: "2020-02-03T08:45:50.525Z",
    orderRef: "LGMl2DuvPnfPoSHhYFOm",
    tenantOrderId: "R456728546",
    processId: "proc-1",
    preferredPickingMethods: ["SINGLE_ORDER"],
    paymentInformation: { currency: "EUR" },
    pickingTimes: { startLatestAt: "2024-02-03T09:45:51.525Z" },
    customAttributes: { gift: true },
    deliveryinformation: {
      channel: "SHIPPING",
      targetTime: "2020-02-03T09:45:51.525Z",
      details: {
        shipping: {
          carrierKey: "DPD",
          carrierProductCategory: "STANDARD",
          recipientaddress: {
            ...facilityAddress,
            firstName: "Maxine",
            lastName: "Muller",
            email: "test@try.de",
            addressType: "POSTAL_ADDRESS",
          },
        },
      },
    },
    pickLineItems: [
      {
        article: {
          tenantArticleId: "4711",
          title: "Cologne Water",
          imageUrl: "https://example.com/resource",
          attributes: [{ key: "%%subtitle%%", value: "585er Gold", category: "descriptive" }],
          weight: 250,
        },
        quantity: 4,
        scannableCodes: ["4006381333931"],
        measurementUnitKey: "pcs",
        allowedSubstitutes: [
          { tenantArticleId: "4712", title: "Cologne Water XL", priority: 2 },
          { tenantArticleId: "4713", title: "Cologne Water Travel", priority: 1 },
        ],
        recordableAttributes: [{ keyLocalized: { en_US: "country of origin" }, recordingRule: "MANDATORY" }],
      },
      {
        article: { tenantArticleId: "0815", title: "Soap" },
        quantity: 10,
        measurementValidation: {
          overPickHardTolerancePercentage: 20,
          overPickSoftTolerancePercentage: 10,
          shortPickHardTolerancePercentage: 50,
        },
      },
    ],
    ...overrides,
  };
}
