import { Type } from '@sinclair/typebox';
import { defineTopic } from './topic';

/** The account's ingestion filtering rules after a change; consumers keep their own copy. */
export const IngestionFilteringRulesChanged = defineTopic(
  'guidepost.content.ingestion-filtering-rules-changed.v1',
  'account id',
  Type.Object({
    accountId: Type.String(),
    mode: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
    eventNames: Type.Array(Type.String()),
    userProperties: Type.Array(Type.String()),
    groupProperties: Type.Array(Type.String()),
    updatedAt: Type.String({ format: 'date-time' }),
  }),
);
