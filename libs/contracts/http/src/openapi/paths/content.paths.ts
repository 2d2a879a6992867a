import { ExperienceSchema, FlowSchema, IngestionFilteringRulesSchema, TagSchema } from '../../schemas/content.schema';
import {
  ACCOUNT_PATH,
  listResponse,
  objectResponse,
  operation,
  statusAcknowledgementResponse,
  type PathItems,
  type PathParameterName,
} from '../openapi-builders';

/** Flows, pins, mobile experiences, tags and ingestion filtering rules (owned by the content service). */

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
  readonly description: string;
}

function publishablePaths(kind: PublishableKind, schema: typeof FlowSchema | typeof ExperienceSchema): PathItems {
  const base = `${ACCOUNT_PATH}/${kind.collection}`;
  const item = `${base}/{${kind.parameter}}`;
  const common = { tag: kind.tag, pathParameters: [kind.parameter] as const, errors: [404] as const };
  return {
    [base]: {
      get: operation({
        operationId: `list${kind.plural}`,
        tag: kind.tag,
        summary: `List ${kind.description}s`,
        description: `Every ${kind.description} of the account. ${IGNORED_QUERY}`,
        responses: { 200: listResponse(`The ${kind.description}s`, schema) },
      }),
    },
    [item]: {
      get: operation({
        ...common,
        operationId: `get${kind.singular}`,
        summary: `Get a ${kind.description}`,
        responses: { 200: objectResponse(`The ${kind.description}`, schema) },
      }),
    },
    [`${item}/publish`]: {
      post: operation({
        ...common,
        operationId: `publish${kind.singular}`,
        summary: `Publish a ${kind.description}`,
        description: `Sets \`published\` to true and \`published_at\` to now; a published record stays unchanged. ${NO_BODY}`,
        responses: { 200: statusAcknowledgementResponse('Published (or already published)') },
      }),
    },
    [`${item}/unpublish`]: {
      post: operation({
        ...common,
        operationId: `unpublish${kind.singular}`,
        summary: `Unpublish a ${kind.description}`,
        description: `Sets \`published\` to false and keeps \`published_at\` (the last publish time). ${NO_BODY}`,
        responses: { 200: statusAcknowledgementResponse('Unpublished (or already unpublished)') },
      }),
    },
  };
}

export function contentPaths(): PathItems {
  return {
    ...publishablePaths(
      { collection: 'flows', parameter: 'flow_id', singular: 'Flow', plural: 'Flows', tag: 'Flows', description: 'flow' },
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
    ...publishablePaths(
      { collection: 'pins', parameter: 'pin_id', singular: 'Pin', plural: 'Pins', tag: 'Pins', description: 'pin' },
      ExperienceSchema,
    ),
    ...publishablePaths(
      {
        collection: 'mobile',
        parameter: 'mobile_id',
        singular: 'MobileExperience',
        plural: 'MobileExperiences',
        tag: 'Mobile experiences',
        description: 'mobile experience',
      },
      ExperienceSchema,
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
