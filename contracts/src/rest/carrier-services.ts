/** What a carrier offers (CarrierProductCategory, CarrierServices): pick jobs' shipping details and carriers. */
import { StringEnum } from "./common.ts";

export const CarrierProductCategory = StringEnum(["STANDARD", "EXPRESS", "VALUE", "FORWARDING"], {
  title: "CarrierProductCategory",
});
export const CarrierServices = StringEnum(
  [
    "SIGNATURE",
    "CUSTOMER_SIGNATURE",
    "ADULT_SIGNATURE",
    "SATURDAY_DELIVERY",
    "IDENTITY_CHECK_COMPANY",
    "IDENTITY_CHECK_PRIVATE",
    "ADDITIONAL_TRANSPORTATION_INSURANCE",
    "IDENTITY_AGE_CHECK_18",
    "NO_NEIGHBOR_DELIVERY",
    "HANDOVER_TO_RECIPIENT_ONLY",
  ],
  { title: "CarrierServices" },
);
