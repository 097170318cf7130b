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
