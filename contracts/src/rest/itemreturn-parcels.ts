/**
 * Item return parcel schemas, matching the reference (ParcelForCreation, Parcel and their parts).
 * Bounds the reference leaves open are ours: 500 items, 100 load unit refs, 50 transfers.
 */

import { Type } from "@sinclair/typebox";
import { OPERATIVE_TRANSFER_TYPES } from "../picking.ts";
import { ConsumerAddress } from "./address.ts";
import { ParcelItemArticle } from "./article.ts";
import { CustomAttributes, closed, DateTime, nullable, opt, StringEnum } from "./common.ts";
import { CurrencyCode, PaymentInformation } from "./currency.ts";
import { FacilityAddress } from "./facilities.ts";
import { RecordableAttributeForCreation } from "./recordable-attribute.ts";

export const PARCEL_STATUSES = [
  "OPEN",
  "PROCESSING",
  "DONE",
  "FAILED",
  "CANCELED",
  "OBSOLETE",
  "WAITING_FOR_INPUT",
] as const;
const TRACKING_STATUSES = [
  "registered",
  "picked_up",
  "delivered",
  "not_delivered",
  "transit",
  "exception",
  "out_for_delivery",
  "destroyed",
  "unknown",
  "canceled",
  "awaits_pickup_by_receiver",
  "delayed",
  "notification",
] as const;

const ParcelCarrierInformation = Type.Object(
  { shippingContainerNumber: opt(Type.String({ maxLength: 256 })) },
  { ...closed, title: "ParcelCarrierInformation" },
);

const Measure = Type.Number({ minimum: 0 });
const ParcelDimensions = nullable(
  Type.Object(
    {
      customWeight: opt(Measure),
      height: opt(Measure),
      length: opt(Measure),
      weight: opt(Measure),
      width: opt(Measure),
    },
    { ...closed, title: "ParcelDimensions" },
  ),
);

const ParcelPickUpInformation = nullable(
  Type.Object(
    { startTime: DateTime("needs to be before end time"), endTime: DateTime("needs to be after start time") },
    { ...closed, title: "ParcelPickUpInformation" },
  ),
);

const ParcelServices = nullable(
  Type.Object(
    {
      additionalTransportInsurance: opt(Type.Boolean()),
      adultSignature: opt(Type.Boolean()),
      bulkyGoods: opt(Type.Boolean()),
      customerSignature: opt(Type.Boolean()),
      handoverToRecipientOnly: opt(Type.Boolean()),
      identityAgeCheck18: opt(Type.Boolean()),
      identityCheckCompany: opt(Type.Boolean()),
      identityCheckPrivate: opt(Type.Boolean()),
      noNeighborDelivery: opt(Type.Boolean()),
      saturdayDelivery: opt(Type.Boolean()),
      signature: opt(Type.Boolean()),
    },
    { ...closed, title: "ParcelServices" },
  ),
);

const ProductValueCurrency = Type.Object(
  { currency: CurrencyCode, decimalPlaces: opt(Type.Integer({ minimum: 0, maximum: 10 })) },
  { ...closed, title: "ProductValueCurrency" },
);
const ProductValueType = StringEnum(["INSURANCE", "CUSTOMS", "SHOP_PRICE"], { title: "ProductValueType" });

const ParcelResult = Type.Object(
  {
    summary: Type.String({ description: "Summary of the result of the request in a human readable form." }),
    carrierParcelRef: opt(Type.String({ minLength: 1, maxLength: 120 })),
    carrierTrackingNumber: opt(Type.String()),
    carrierTrackingStatus: opt(
      Type.Union([
        StringEnum(TRACKING_STATUSES),
        Type.Object(
          {
            status: Type.String({ description: "Status of the parcel as provided by carrier" }),
            description: opt(Type.String()),
            location: opt(
              Type.Object(
                { address: opt(Type.Object({ addressLocality: opt(Type.String()) })) },
                { ...closed, title: "DhlTrackingLocation" },
              ),
            ),
            remark: opt(Type.String()),
            statusCode: opt(Type.String()),
            statusDetailed: opt(Type.String()),
            timestamp: opt(DateTime()),
          },
          { ...closed, title: "DhlTrackingStatus" },
        ),
      ]),
    ),
    customsDocumentId: opt(Type.String()),
    customsDocumentUrl: opt(Type.String()),
    errors: opt(
      Type.Object({ labelError: opt(Type.String()), returnLabelError: opt(Type.String()) }, closed),
    ),
    labelUrl: opt(Type.String()),
    proxyId: opt(Type.String()),
    returnLabelId: opt(Type.String()),
    returnLabelUrl: opt(Type.String()),
    returnTrackingUrl: opt(Type.String()),
    sendLabelUrl: opt(Type.String()),
    trackingStatus: opt(StringEnum(TRACKING_STATUSES)),
    trackingUrl: opt(Type.String()),
  },
  { title: "ParcelResult" },
);

const ParcelOperativeTransfer = Type.Object(
  { id: Type.String({ maxLength: 256 }), type: StringEnum(OPERATIVE_TRANSFER_TYPES) },
  { ...closed, title: "ParcelOperativeTransfer" },
);

const ParcelItemValue = nullable(
  Type.Object(
    {
      value: Type.Number({ description: "Monetary Value of a single item in the given currency" }),
      currency: CurrencyCode,
      decimalPlaces: opt(Type.Integer({ minimum: 0, maximum: 10 })),
      type: opt(ProductValueType),
    },
    { title: "ParcelItemValue" },
  ),
);

const parcelItemFields = {
  article: opt(ParcelItemArticle),
  customAttributes: opt(CustomAttributes),
  globalLineItemId: opt(Type.String()),
  measurementUnitKey: opt(Type.String({ minLength: 1 })),
  quantity: Type.Integer({ minimum: 1, maximum: 1_000_000, description: "amount of the given items" }),
  scannableCodes: opt(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 50 })),
  secondaryMeasurementUnitKey: opt(Type.String({ minLength: 1 })),
  secondaryQuantity: opt(Type.Number({ minimum: 0 })),
  countryOfManufacture: opt(Type.String({ deprecated: true })),
  description: opt(Type.String()),
  hsCode: opt(Type.String({ maxLength: 50, deprecated: true })),
  parcelItemValue: opt(ParcelItemValue),
  weightInGram: opt(Type.Integer({ minimum: 0, deprecated: true })),
};

const ParcelItemForCreation = Type.Object(
  {
    ...parcelItemFields,
    recordableAttributes: opt(Type.Array(RecordableAttributeForCreation, { maxItems: 50 })),
  },
  { title: "ParcelItemForCreation" },
);

const parcelFields = {
  carrierInformation: opt(ParcelCarrierInformation),
  carrierProduct: opt(Type.String({ maxLength: 256, description: "Desired product of the carrier" })),
  customAttributes: opt(CustomAttributes),
  customProductValue: opt(Type.Number({ minimum: 0 })),
  dimensions: opt(ParcelDimensions),
  invoice: opt(ConsumerAddress),
  loadUnitRefs: opt(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 100 })),
  paymentInformation: opt(PaymentInformation),
  pickUpInformation: opt(ParcelPickUpInformation),
  productValue: opt(Type.Number({ minimum: 0 })),
  productValueCurrency: opt(ProductValueCurrency),
  productValueType: opt(ProductValueType),
  recipient: opt(ConsumerAddress),
  result: opt(ParcelResult),
  returnAddress: opt(FacilityAddress),
  sender: opt(FacilityAddress),
  services: opt(ParcelServices),
  shortId: opt(Type.String({ maxLength: 64 })),
  status: opt(StringEnum(PARCEL_STATUSES, { title: "ParcelStatus" })),
  tenantOrderId: opt(Type.String({ maxLength: 256 })),
  tenantParcelId: opt(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description:
        "Tenant specific parcel id, unique among the tenant's parcels that are not obsolete or canceled",
    }),
  ),
  transfers: opt(Type.Array(ParcelOperativeTransfer, { minItems: 0, maxItems: 50 })),
};

export const ParcelForCreation = Type.Object(
  {
    ...parcelFields,
    carrierRef: Type.String({
      minLength: 1,
      maxLength: 256,
      description: "The carrier to send the parcel with: one of the tenant's carriers.",
    }),
    items: opt(Type.Array(ParcelItemForCreation, { maxItems: 500 })),
    parentRef: opt(Type.String({ maxLength: 256, description: "Reference to the parent container" })),
  },
  { ...closed, title: "ParcelForCreation" },
);

export const Parcel = Type.Object(
  {
    ...parcelFields,
    id: Type.String(),
    version: Type.Integer(),
    created: opt(DateTime()),
    lastModified: opt(DateTime()),
    status: StringEnum(PARCEL_STATUSES, { title: "ParcelStatus" }),
    carrierRef: Type.String(),
    processRef: Type.String(),
    sender: FacilityAddress,
    recipient: ConsumerAddress,
    loadUnitRefs: Type.Array(Type.String()),
    workflowInformation: Type.Object({ isAvailable: Type.Boolean() }, { additionalProperties: true }),
    items: opt(
      Type.Array(
        Type.Object({ id: Type.String(), quantity: Type.Integer() }, { additionalProperties: true }),
      ),
    ),
  },
  { title: "Parcel" },
);
