/** Addresses as the reference writes them (Address, ConsumerAddress), shared by pick jobs and item returns. */

import { Type } from "@sinclair/typebox";
import { PHONE_NUMBER_TYPES } from "../common.ts";
import { FreeObject, opt, StringEnum } from "./common.ts";

const NonEmpty = Type.String({ pattern: "^.+$" });

export const AddressType = StringEnum(["POSTAL_ADDRESS", "PARCEL_LOCKER", "INVOICE_ADDRESS"], {
  title: "AddressType",
  description: "Type of this address, used e.g. for communication with the carrier.",
});

export const Coordinates = Type.Object(
  {
    lat: Type.Number({ description: "Latitude value" }),
    lon: Type.Number({ description: "Longitude value" }),
  },
  { title: "Coordinates" },
);

const addressProperties = {
  additionalAddressInfo: opt(Type.String()),
  city: NonEmpty,
  country: Type.String({
    pattern: "^[A-Z]{2}$",
    description: "A two-digit country code as per ISO 3166-1 alpha-2",
  }),
  customAttributes: opt(FreeObject("Attributes that can be added to the address.")),
  houseNumber: opt(NonEmpty),
  phoneNumbers: opt(
    Type.Array(
      Type.Object({
        customAttributes: opt(FreeObject()),
        label: opt(Type.String()),
        type: StringEnum(PHONE_NUMBER_TYPES),
        value: Type.String({ description: "The number itself. We do not enforce any format (yet)." }),
      }),
      { maxItems: 500 },
    ),
  ),
  postalCode: NonEmpty,
  province: opt(NonEmpty),
  street: NonEmpty,
};
export const Address = Type.Object(addressProperties, { title: "Address" });

/** Reference: allOf[Address] + the consumer's fields; flattened (required as Address's). */
export const ConsumerAddress = Type.Object(
  {
    ...addressProperties,
    addressType: opt(AddressType),
    companyName: opt(Type.String()),
    coordinates: opt(Coordinates),
    email: opt(Type.String({ format: "email", minLength: 1 })),
    firstName: opt(Type.String()),
    lastName: opt(Type.String()),
    personalTitle: opt(Type.String()),
    salutation: opt(Type.String()),
  },
  { title: "ConsumerAddress" },
);
