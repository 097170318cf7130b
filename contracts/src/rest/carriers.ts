/**
 * Carrier, carrier configuration, country service mapping and transit time schemas, matching the
 * reference (Carrier, CarrierForCreation, CarrierPatchActions, CarrierConfiguration and its
 * carrier-specific variants, CarrierCountryServiceMapping(ForCreation|ForUpdate),
 * TransitTimeConfiguration(ForUpsert)). Defaults are applied by the service, never here: a
 * ModifyCarrier must not reset what it does not name.
 */

import { type TSchema, Type } from "@sinclair/typebox";
import {
  CALCULATION_STRATEGIES,
  CARRIER_DELIVERY_TYPES,
  CARRIER_LIFECYCLES,
  CARRIER_STATUSES,
  NON_DELIVERY_TYPES,
  WEEKDAYS,
} from "../carriers.ts";
import { PHONE_NUMBER_TYPES } from "../common.ts";
import { CarrierProductCategory, CarrierServices } from "./carrier-services.ts";
import { DateTime, ListQuery, LocaleString, opt, RequestVersion, StringEnum } from "./common.ts";
import { CurrencyCode } from "./currency.ts";

const Text = (description?: string) => Type.String({ maxLength: 4096, description });
const List = <T extends TSchema>(
  item: T,
  opts: { minItems?: number; maxItems: number; description?: string },
) => Type.Array(item, opts);

export const CARRIER_KEY_DESCRIPTION =
  "References the KEP. Currently allowed values are DHL_V2, DPD_CH, DPD_CH_VCE, ANGEL, GLS, FEDEX, POSTNL, BRING, UPS, POST_NORD, DHL_EXPRESS, CUSTOM and to distinct between multiple custom carriers one can use CUSTOM_ combined with a unique name. Unique in the tenant.";

// --- carriers ------------------------------------------------------------------------------------

/**
 * Credentials: `key` names their type (GLS, DPD_CH, ...); the other properties are the carrier's
 * secrets (usernames, passwords, API keys). They are kept sealed and never returned: a response
 * shows `credentials` as `{key}` only.
 */
const Credentials = (title: string) =>
  Type.Object(
    {
      key: Type.String({
        minLength: 1,
        maxLength: 100,
        description: "The key identifying the carrier credentials type",
      }),
    },
    {
      title,
      additionalProperties: true,
      maxProperties: 50,
      description: "Credentials for the carrier. Write-only: responses carry only `key`.",
    },
  );

const ParcelLabelClassificationDimensions = Type.Union(
  [
    Type.Object(
      {
        customWeight: opt(Type.Number()),
        height: opt(Type.Number()),
        length: opt(Type.Number()),
        weight: opt(Type.Number()),
        width: opt(Type.Number()),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { title: "ParcelLabelClassificationDimensions" },
);

const ParcelLabelClassificationForCreation = Type.Object(
  {
    nameLocalized: LocaleString,
    dimensions: ParcelLabelClassificationDimensions,
    services: opt(Type.Object({ bulkyGoods: opt(Type.Boolean()) })),
  },
  { title: "ParcelLabelClassificationForCreation" },
);

const ParcelField = (description: string) => opt(Type.Number({ minimum: 1, maximum: 1e9, description }));
const carrierFields = {
  logoUrl: opt(Type.String({ minLength: 1, maxLength: 2048, description: "URL of the carrier logo" })),
  productValueNeeded: opt(Type.Boolean()),
  status: opt(StringEnum(CARRIER_STATUSES, { description: "Default: INACTIVE" })),
  defaultParcelHeightInCm: ParcelField("Default height in cm (default 10)"),
  defaultParcelLengthInCm: ParcelField("Default length in cm (default 25)"),
  defaultParcelWidthInCm: ParcelField("Default width in cm (default 35)"),
  defaultParcelWeightInGram: ParcelField("Default weight for a parcel in gram (default 1000)"),
  parcelLabelClassifications: opt(List(ParcelLabelClassificationForCreation, { maxItems: 100 })),
};
const Name = Type.String({ minLength: 1, maxLength: 256 });

export const CarrierForCreation = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 128, description: CARRIER_KEY_DESCRIPTION }),
    name: Name,
    credentials: opt(Credentials("AbstractCarrierCredentials")),
    ...carrierFields,
  },
  { title: "CarrierForCreation" },
);

const ModifyCarrier = Type.Object(
  {
    action: Type.Literal("ModifyCarrier"),
    name: opt(Name),
    credentials: opt(Credentials("AbstractModifyCarrierCredentials")),
    deliveryType: opt(StringEnum(CARRIER_DELIVERY_TYPES)),
    lifecycle: opt(StringEnum(CARRIER_LIFECYCLES)),
    ...carrierFields,
  },
  { title: "ModifyCarrier" },
);

export const CarrierPatchActions = Type.Object(
  {
    version: RequestVersion(),
    actions: List(ModifyCarrier, { minItems: 1, maxItems: 100 }),
  },
  { title: "CarrierPatchActions" },
);

const carrierReadFields = {
  id: Type.String(),
  version: Type.Integer(),
  created: opt(DateTime()),
  lastModified: opt(DateTime()),
  key: Type.String(),
  name: Type.String(),
  status: opt(StringEnum(CARRIER_STATUSES)),
  deliveryType: opt(StringEnum(CARRIER_DELIVERY_TYPES)),
  lifecycle: opt(StringEnum(CARRIER_LIFECYCLES)),
};

export const Carrier = Type.Object(
  {
    ...carrierFields,
    ...carrierReadFields,
    credentials: opt(Type.Object({ key: Type.String() }, { description: "Only the credentials type." })),
    defaultParcelHeightInCm: Type.Number(),
    defaultParcelLengthInCm: Type.Number(),
    defaultParcelWidthInCm: Type.Number(),
  },
  { title: "Carrier" },
);

export const StrippedCarriers = Type.Object(
  {
    carriers: Type.Array(Type.Object(carrierReadFields, { title: "StrippedCarrier" })),
    total: Type.Integer(),
  },
  { title: "StrippedCarriers" },
);

export const CarrierListQuery = Type.Object(ListQuery);
export const CarrierIdParams = Type.Object({ carrierId: Type.String({ maxLength: 256 }) });
export const MappingIdParams = Type.Object({
  carrierId: Type.String({ maxLength: 256 }),
  countryServiceMappingId: Type.String({ maxLength: 256 }),
});

// --- country service mappings --------------------------------------------------------------------

const RegionInformation = Type.Object(
  {
    countryCode: Type.String({ minLength: 2, maxLength: 2, description: "ISO 3166 ALPHA-2 of country" }),
    postalCodes: opt(List(Type.String({ maxLength: 32 }), { maxItems: 100 })),
  },
  { title: "RegionInformation" },
);

const SHIPPING_REFERENCED_FIELDS = [
  "dimensions.weight",
  "productValue",
  "pickUpInformation.startTime",
  "pickUpInformation.endTime",
  "services.BulkyGoods",
  "services.Signature",
  "services.AdultSignature",
  "services.CustomerSignature",
  "services.SaturdayDelivery",
  "services.IdentityCheckPrivate",
  "services.IdentityCheckCompany",
  "services.AdditionalTransportInsurance",
  "carrierInformation.shippingContainerNumber",
  "services.NoNeighborDelivery",
  "services.HandoverToRecipientOnly",
  "services.IdentityAgeCheck18",
];
const ShippingAttribute = (title: string) =>
  Type.Object(
    {
      descriptionLocalized: opt(LocaleString),
      dataType: opt(StringEnum(["Number", "String", "Date", "Boolean"])),
      description: opt(Text()),
      referencedField: opt(StringEnum(SHIPPING_REFERENCED_FIELDS)),
    },
    { title },
  );
const ShippingArticleAttribute = (title: string) =>
  Type.Object(
    {
      descriptionLocalized: LocaleString,
      category: StringEnum(["customs", "dimensions", "insurance"]),
      dataType: StringEnum(["NUMBER", "STRING"]),
      description: opt(Text()),
      referencedField: StringEnum([
        "attributes.weightPerUnit",
        "attributes.hsCode",
        "attributes.currency",
        "attributes.valuePerUnit",
        "attributes.countryOfManufacture",
      ]),
    },
    { title },
  );
const MandatoryShippingItemAttribute = Type.Object(
  {
    descriptionLocalized: opt(LocaleString),
    dataType: opt(StringEnum(["Number", "String", "Date", "Boolean"])),
    description: opt(Text()),
    referencedField: opt(
      StringEnum([
        "description",
        "weightInGram",
        "quantity",
        "parcelItemValue.value",
        "parcelItemValue.currency",
        "countryOfManufacture",
        "tenantArticleId",
      ]),
    ),
  },
  { title: "MandatoryShippingItemAttribute", deprecated: true },
);

const CarrierTransitTime = Type.Object(
  {
    minTransitDays: Type.Integer({
      minimum: 0,
      maximum: 365,
      description: "Minimum days a carrier needs for transit",
    }),
    maxTransitDays: Type.Integer({
      minimum: 0,
      maximum: 365,
      description: "Maximum days a carrier needs for transit",
    }),
  },
  { title: "CarrierTransitTime" },
);
const DeliveryCost = Type.Object(
  {
    cost: Type.Number({ description: "The cost of sending with a carrier" }),
    currency: CurrencyCode,
  },
  { title: "DeliveryCost" },
);

const mappingFields = (forCreation: boolean) => ({
  additionalShippingArticleAttributes: opt(
    List(ShippingArticleAttribute("AdditionalShippingArticleAttribute"), { maxItems: 20 }),
  ),
  additionalShippingAttributes: opt(List(ShippingAttribute("AdditionalShippingAttribute"), { maxItems: 30 })),
  carrierProductCategory: opt(CarrierProductCategory),
  countAsTransitDayBefore: opt(
    Type.String({
      maxLength: 16,
      description: "Time of day HH:MM (00:00-23:59) before which the hand-over day counts as a transit day",
      examples: ["12:00"],
    }),
  ),
  deliveryCosts: opt(List(DeliveryCost, { minItems: forCreation ? 1 : 0, maxItems: 1 })),
  destinationCountries: opt(
    List(Type.String({ minLength: 2, maxLength: 2 }), {
      minItems: 1,
      maxItems: 250,
      description: "deprecated - Use destinations instead (mapped onto destinations).",
    }),
  ),
  mandatoryShippingArticleAttributes: opt(
    List(ShippingArticleAttribute("MandatoryShippingArticleAttribute"), { maxItems: 20 }),
  ),
  mandatoryShippingAttributes: opt(List(ShippingAttribute("MandatoryShippingAttribute"), { maxItems: 30 })),
  mandatoryShippingItemAttributes: opt(List(MandatoryShippingItemAttribute, { maxItems: 30 })),
  products: opt(List(Type.String({ maxLength: 256 }), { maxItems: 50 })),
  sourceCountry: opt(
    Type.String({
      minLength: 2,
      maxLength: 2,
      description: "deprecated - Use source instead (mapped onto source).",
    }),
  ),
  transitTime: opt(CarrierTransitTime),
});
const CarrierConfigurationVersion = RequestVersion({
  description: "The version of the carrier configuration to be used in optimistic locking mechanisms.",
});
const Destinations = List(RegionInformation, { minItems: 1, maxItems: 250 });

export const CarrierCountryServiceMappingForCreation = Type.Object(
  {
    carrierConfigurationVersion: CarrierConfigurationVersion,
    source: RegionInformation,
    destinations: Destinations,
    ...mappingFields(true),
  },
  { title: "CarrierCountryServiceMappingForCreation" },
);

export const CarrierCountryServiceMappingForUpdate = Type.Object(
  {
    carrierConfigurationVersion: CarrierConfigurationVersion,
    source: opt(RegionInformation),
    destinations: opt(Destinations),
    ...mappingFields(false),
  },
  { title: "CarrierCountryServiceMappingForUpdate" },
);

export const CarrierCountryServiceMapping = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 256 }),
    source: RegionInformation,
    destinations: Destinations,
    carrierServices: opt(List(CarrierServices, { maxItems: 10 })),
    staticCCSMRef: opt(Type.String({ maxLength: 256 })),
    ...mappingFields(false),
  },
  { title: "CarrierCountryServiceMapping" },
);

// --- configuration -------------------------------------------------------------------------------

const NonEmpty = Type.String({ pattern: "^.+$", maxLength: 1024 });
const CarrierFacilityAddress = Type.Object(
  {
    street: NonEmpty,
    houseNumber: opt(NonEmpty),
    postalCode: NonEmpty,
    city: NonEmpty,
    country: Type.String({ pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2" }),
    province: opt(NonEmpty),
    additionalAddressInfo: opt(Text()),
    companyName: Type.String({ maxLength: 1024 }),
    customAttributes: opt(Type.Object({}, { additionalProperties: true })),
    phoneNumbers: opt(
      List(
        Type.Object({
          value: Type.String({ maxLength: 256 }),
          type: StringEnum(PHONE_NUMBER_TYPES),
          label: opt(Text()),
          customAttributes: opt(Type.Object({}, { additionalProperties: true })),
        }),
        { maxItems: 500 },
      ),
    ),
    emailAddresses: opt(
      List(Type.Object({ value: Type.String({ maxLength: 1024 }), recipient: opt(Text()) }), {
        maxItems: 10,
      }),
    ),
    resolvedCoordinates: opt(Type.Object({ lat: Type.Number(), lon: Type.Number() })),
    resolvedTimeZone: opt(
      Type.Object({
        timeZoneId: Type.String({ maxLength: 256 }),
        timeZoneName: Type.String({ maxLength: 256 }),
        offsetInSeconds: Type.Number(),
        source: opt(Text()),
      }),
    ),
  },
  { title: "CarrierFacilityAddress" },
);

const NonDeliveryDays = Type.Object(
  {
    nonDeliveryDay: Type.String({
      pattern: "^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:\\d{2})?)?$",
      description: "The non-delivery day, YYYY-MM-DD (a date-time's date is taken; stored as YYYY-MM-DD)",
    }),
    nonDeliveryType: opt(
      StringEnum(NON_DELIVERY_TYPES, {
        description: "RECURRING: the same day every year. Default: SINGLE",
      }),
    ),
  },
  { title: "NonDeliveryDays" },
);
const Weekdays = List(StringEnum(WEEKDAYS), { maxItems: 7 });
const NonDeliveryDaysPerCountryAndProvince = Type.Object(
  {
    country: Type.String({ minLength: 2, maxLength: 2, description: "The country code" }),
    nonDeliveryDays: List(NonDeliveryDays, { maxItems: 500 }),
    recurringNonDeliveryWeekdays: Weekdays,
    nonDeliveryDaysPerProvince: List(
      Type.Object(
        {
          province: Type.String({ minLength: 1, maxLength: 256 }),
          nonDeliveryDays: List(NonDeliveryDays, { maxItems: 500 }),
          recurringNonDeliveryWeekdays: Weekdays,
        },
        { title: "NonDeliveryDaysPerProvince" },
      ),
      { maxItems: 500 },
    ),
  },
  { title: "NonDeliveryDaysPerCountryAndProvince" },
);

const TimeStamp = Type.Object(
  { hour: Type.Integer({ minimum: 0, maximum: 23 }), minute: Type.Integer({ minimum: 0, maximum: 59 }) },
  { title: "TimeStamp" },
);

const configurationFields = {
  id: opt(Type.String({ maxLength: 256, description: "Ignored on PUT: the configuration keeps its id." })),
  version: RequestVersion(),
  created: opt(DateTime()),
  lastModified: opt(DateTime()),
  carrierRef: Type.String({ maxLength: 256, description: "The carrier the path names" }),
  returnLabel: Type.Boolean({
    description: "When enabled, a return label will be created by creating a shipping label",
  }),
  additionalWeightInPercent: opt(Type.Number({ minimum: 0, maximum: 1e6 })),
  alternativeReturnAddress: opt(CarrierFacilityAddress),
  alternativeSendAddress: opt(CarrierFacilityAddress),
  countryServiceMappings: opt(List(CarrierCountryServiceMapping, { maxItems: 100 })),
  defaultPickUpTime: opt(Type.Object({ start: TimeStamp, end: TimeStamp }, { title: "CarrierPickUpTime" })),
  fallBackTrackAndTraceEmail: opt(Type.String({ format: "email", minLength: 1, maxLength: 320 })),
  mustBeWeighed: opt(Type.Boolean()),
  nonDeliveryDaysPerCountryAndProvince: opt(List(NonDeliveryDaysPerCountryAndProvince, { maxItems: 500 })),
  serviceUrl: opt(Type.String({ maxLength: 2048 })),
  thresholdPriceValue: opt(
    Type.Object(
      {
        priority: Type.Number({ minimum: 1 }),
        priceRange: Type.Object(
          {
            from: Type.Number({ minimum: 0 }),
            to: Type.Number({ minimum: 1 }),
            currency: CurrencyCode,
            decimalPlaces: Type.Integer({ minimum: 0, maximum: 10 }),
          },
          { title: "PriceRange" },
        ),
      },
      { title: "ThresholdPriceValue" },
    ),
  ),
};

/** Fields only the carrier-specific configurations have (GLS, FedEx, Bring, DHL V2, ...): kept as given. */
const variantFields = {
  alternativeReturnAddressLocationId: opt(Text()),
  alternativeSendAddressLocationId: opt(Text()),
  trackAndTraceUrl: opt(Text()),
  trackAndTraceWsdlUrl: opt(Text()),
  useEconomyService: opt(Type.Boolean()),
  defaultPriceValue: opt(Type.Number()),
  defaultPriceCurrency: opt(CurrencyCode),
  defaultManufactureCountry: opt(Type.String({ maxLength: 2 })),
  defaultCommodityDescription: opt(Text()),
  customerId: opt(Text()),
  supportPhoneNumber: opt(Text()),
  shipmentProduct: opt(Text()),
  returnProduct: opt(Text()),
  webhookFftHost: opt(Text()),
  alwaysDoTrackAndTrace: opt(Type.Boolean()),
  sftpConfiguration: opt(Type.Object({ useSftpForTandT: Type.Boolean() }, { title: "SftpConfiguration" })),
  shipperRef: opt(Text()),
  warehouse: opt(Text()),
};

/**
 * The PUT body: the generic configuration or one of the carrier-specific ones. The reference's
 * anyOf always admits the generic form (its variants only add fields), so one object with every
 * variant's fields accepts the same bodies and keeps what a variant adds.
 */
export const CarrierConfigurationForPut = Type.Object(
  { ...configurationFields, ...variantFields },
  { title: "CarrierConfigurationForPut" },
);

export const CarrierConfiguration = Type.Object(
  {
    ...configurationFields,
    ...variantFields,
    id: Type.String(),
    version: Type.Integer(),
    countryServiceMappings: List(CarrierCountryServiceMapping, { maxItems: 100 }),
  },
  { title: "CarrierConfiguration" },
);

// --- transit time --------------------------------------------------------------------------------

const CalculationStrategy = StringEnum(CALCULATION_STRATEGIES, { description: "EARLIEST or LATEST" });

export const TransitTimeConfigurationForUpsert = Type.Object(
  {
    version: RequestVersion({ description: "The current version (not checked when none exists yet)." }),
    calculationStrategy: CalculationStrategy,
    created: opt(DateTime()),
    lastModified: opt(DateTime()),
  },
  { title: "TransitTimeConfigurationForUpsert" },
);

export const TransitTimeConfiguration = Type.Object(
  {
    id: Type.String(),
    version: Type.Integer(),
    calculationStrategy: CalculationStrategy,
    created: opt(DateTime()),
    lastModified: opt(DateTime()),
  },
  { title: "TransitTimeConfiguration" },
);
