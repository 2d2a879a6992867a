import type { TSchema } from '@sinclair/typebox';
import { FlowSchema, IngestionFilteringRulesSchema, TagSchema } from '../../schemas/content.schema';
import {
  EXPERIENCE_KINDS,
  EXPERIENCE_RECORD_SCHEMAS,
  operationStemsOf,
  tagOf,
  type ExperienceKindDefinition,
} from '../../schemas/experience-kinds';
import {
  ACCOUNT_PATH,
  listResponse,
  objectResponse,
  operation,
  statusAcknowledgementResponse,
  type PathItems,
  type PathParameterName,
} from '../openapi-builders';

/** Flows, the experience kinds (pins, mobile, launchpads, ...), tags and ingestion filtering rules (owned by the content service). */

const IGNORED_QUERY = 'Lists are not paginated: unknown query parameters (such as `page` or `limit`) are ignored, never rejected.';
const NO_BODY =
  'Sent with an empty body and no `Content-Type` (any body is ignored). Repeating the command is harmless: the record stays ' +
  'as it is and the answer is the same 200.';

interface PublishableKind {
  readonly collection: string;
  readonly parameter: PathParameterName;
  /** Operation id stem, singular and plural: `Flow`, `Flows`. */
  readonly singular: string;
  readonly plural: string;
  readonly tag: string;
  /** A record and several, in prose: `flow`, `flows`. */
  readonly nouns: readonly [string, string];
  /** Whether its records carry a lifecycle label (`state`) that publishing moves along (every experience kind; flows do not). */
  readonly labelled: boolean;
}

/** An experience kind of `EXPERIENCE_KINDS` as a publishable kind of the document. */
function experienceKind(kind: ExperienceKindDefinition): PublishableKind {
  const [singular, plural] = operationStemsOf(kind);
  return {
    collection: kind.collection,
    parameter: kind.parameter as PathParameterName,
    singular,
    plural,
    tag: tagOf(kind),
    nouns: kind.nouns,
    labelled: true,
  };
}

function publishablePaths(kind: PublishableKind, schema: TSchema): PathItems {
  const [noun, nouns] = kind.nouns;
  const base = `${ACCOUNT_PATH}/${kind.collection}`;
  const item = `${base}/{${kind.parameter}}`;
  const common = { tag: kind.tag, pathParameters: [kind.parameter] as const, errors: [404] as const };
  return {
    [base]: {
      get: operation({
        operationId: `list${kind.plural}`,
        tag: kind.tag,
        summary: `List ${nouns}`,
        description: `Every ${noun} of the account, ordered by name, then id. ${IGNORED_QUERY}`,
        responses: { 200: listResponse(`The ${nouns}`, schema) },
      }),
    },
    [item]: {
      get: operation({
        ...common,
        operationId: `get${kind.singular}`,
        summary: `Get a ${noun}`,
        responses: { 200: objectResponse(`The ${noun}`, schema) },
      }),
    },
    [`${item}/publish`]: {
      post: operation({
        ...common,
        operationId: `publish${kind.singular}`,
        summary: `Publish a ${noun}`,
        description:
          `Sets \`published\` to true${kind.labelled ? ', `state` to `PUBLISHED`' : ''} and \`published_at\` to now; ` +
          `a published record stays unchanged. ${NO_BODY}`,
        responses: { 200: statusAcknowledgementResponse('Published (or already published)') },
      }),
    },
    [`${item}/unpublish`]: {
      post: operation({
        ...common,
        operationId: `unpublish${kind.singular}`,
        summary: `Unpublish a ${noun}`,
        description:
          `Sets \`published\` to false${kind.labelled ? ', turns a `state` of `PUBLISHED` into `DRAFT` (other labels are kept)' : ''} ` +
          `and keeps \`published_at\` (the last publish time). ${NO_BODY}`,
        responses: { 200: statusAcknowledgementResponse('Unpublished (or already unpublished)') },
      }),
    },
  };
}

export function contentPaths(): PathItems {
  return {
    ...publishablePaths(
      {
        collection: 'flows',
        parameter: 'flow_id',
        singular: 'Flow',
        plural: 'Flows',
        tag: 'Flows',
        nouns: ['flow', 'flows'],
        labelled: false,
      },
      FlowSchema,
    ),
    [`${ACCOUNT_PATH}/tags`]: {
      get: operation({
        operationId: 'listTags',
        tag: 'Tags',
        summary: 'List tags',
        description: `Every tag of the account. ${IGNORED_QUERY}`,
        responses: { 200: listResponse('The tags', TagSchema) },
      }),
    },
    [`${ACCOUNT_PATH}/tags/{tag_id}`]: {
      get: operation({
        operationId: 'getTag',
        tag: 'Tags',
        summary: 'Get a tag',
        pathParameters: ['tag_id'],
        responses: { 200: objectResponse('The tag', TagSchema) },
        errors: [404],
      }),
    },
    ...Object.fromEntries(
      EXPERIENCE_KINDS.flatMap((kind) =>
        Object.entries(publishablePaths(experienceKind(kind), EXPERIENCE_RECORD_SCHEMAS.get(kind.collection)!)),
      ),
    ),
    [`${ACCOUNT_PATH}/ingestion_filtering_rules`]: {
      get: operation({
        operationId: 'getIngestionFilteringRules',
        tag: 'Ingestion filtering rules',
        summary: 'Get the ingestion filtering rules',
        description:
          'One record per account: `mode` `allow` (only listed names are kept) or `deny` (listed names are dropped), with ' +
          'name lists for `event_names`, `user_properties` and `group_properties`. The rules apply at every intake (track, ' +
          'imports, profile updates); dropped items are counted, never silently lost. An account that never set rules is in ' +
          'deny mode with empty lists. The rules are written by an administrator (`PUT /admin/v1/accounts/{account_id}/' +
          'ingestion_filtering_rules`), not through the public API.',
        responses: { 200: objectResponse('The rules', IngestionFilteringRulesSchema) },
      }),
    },
  };
}
