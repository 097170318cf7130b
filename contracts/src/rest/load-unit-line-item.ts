/** A load unit's line item as a request creates it: POST /api/loadunits and POST /api/pickjobs/{id}/loadunits. */
import { Type } from "@sinclair/typebox";
import { LoadUnitLineItemArticle, UnitKey } from "./article.ts";
import { FreeObject, opt } from "./common.ts";
import { RecordableAttributeForCreation } from "./recordable-attribute.ts";

export const LoadUnitLineItemForCreation = Type.Object(
  {
    article: LoadUnitLineItemArticle,
    customAttributes: opt(FreeObject()),
    globalLineItemId: opt(
      Type.String({ deprecated: true, description: "Deprecated. Use globalLineItemIds instead." }),
    ),
    globalLineItemIds: opt(Type.Array(Type.String(), { maxItems: 100 })),
    measurementUnitKey: opt(UnitKey()),
    quantity: opt(Type.Number({ description: "The quantity of the lineItem" })),
    recordableAttributes: opt(Type.Array(RecordableAttributeForCreation, { maxItems: 100 })),
    scannableCodes: opt(Type.Array(Type.String(), { maxItems: 100 })),
    secondaryMeasurementUnitKey: opt(UnitKey(1)),
    secondaryQuantity: opt(Type.Number({ minimum: 0 })),
  },
  { title: "LoadUnitLineItemForCreation" },
);
