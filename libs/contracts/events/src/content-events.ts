import { Type, type Static } from '@sinclair/typebox';
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

/** The rule record as every intake applies it. */
export type IngestionFilteringRules = Pick<
  Static<typeof IngestionFilteringRulesChanged.schema>,
  'mode' | 'eventNames' | 'userProperties' | 'groupProperties'
>;

/** What an account has before any rule is written: deny mode with empty lists, so everything is kept. */
export const NO_FILTERING: IngestionFilteringRules = { mode: 'deny', eventNames: [], userProperties: [], groupProperties: [] };

/**
 * Whether a name survives the rules: in allow mode only listed names are kept, in deny mode listed
 * names are dropped. One function, so that every intake (track, imports, profile updates) agrees.
 */
export function isKeptByFilteringRules(
  rules: IngestionFilteringRules,
  list: 'eventNames' | 'userProperties' | 'groupProperties',
  name: string,
): boolean {
  const listed = rules[list].includes(name);
  return rules.mode === 'allow' ? listed : !listed;
}
