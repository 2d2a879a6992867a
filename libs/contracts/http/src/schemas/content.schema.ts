import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Content records (flows, pins, mobile experiences, tags, ingestion filtering rules) as the public API
 * returns them, and the admin inputs that create them. Timestamp forms follow
 * docs/api-contract.md#records-and-timestamp-forms: flows
 * `YYYY-MM-DDTHH:MM:SSZ`, pins and mobile integers (ms since 1970), tags ISO with milliseconds and `Z`.
 * Nested parts (steps, timestamps) carry no `$id`, so each top-level schema compiles on its own.
 */

const FLOW_TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$';
const flowTimestamp = (description: string) =>
  Type.String({ pattern: FLOW_TIMESTAMP_PATTERN, description, examples: ['2024-05-01T09:30:00Z'] });
export const epochMillis = (description: string) => Type.Integer({ minimum: 0, description: `${description} (milliseconds since 1970)` });
const nullable = <S extends TSchema>(schema: S, description: string) => Type.Union([schema, Type.Null()], { description });

const recordId = (description: string) => Type.String({ minLength: 1, description });
const frequency = (description: string) => Type.String({ minLength: 1, description, examples: ['once', 'every_time'] });
const tagIds = () => Type.Array(Type.String({ minLength: 1 }), { description: 'Identifiers of the tags on the record' });
const tagMap = () =>
  Type.Record(Type.String(), Type.Literal(true), { description: 'The tag identifiers of `tag_ids` as keys, each with the value `true`' });
export const resourceUrl = (resource: string) => Type.String({ format: 'uri', description: `Absolute URL of this ${resource}` });
const freeFormObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });
/** The `state` of every experience kind: publish and unpublish move it along with `published`. */
export const lifecycleLabel = () =>
  Type.String({
    minLength: 1,
    description:
      'Lifecycle label: `PUBLISHED` exactly while published; an unpublished record keeps a label of its own (`DRAFT`, `ARCHIVED`, ...), ' +
      'and unpublishing a `PUBLISHED` one makes it `DRAFT`',
    examples: ['DRAFT', 'PUBLISHED', 'ARCHIVED'],
  });
/** The `state` an admin writes: it must agree with `published`. */
export const lifecycleLabelInput = () =>
  Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Lifecycle label; default `PUBLISHED` when published, else `DRAFT`. `PUBLISHED` exactly when `published` is true (else 400)',
    }),
  );

// ---------------------------------------------------------------------------------------------------
// Public records
// ---------------------------------------------------------------------------------------------------

export const FlowSchema = Type.Object(
  {
    id: recordId('Flow identifier'),
    name: Type.String({ description: 'Flow name' }),
    published: Type.Boolean({ description: 'Whether the flow is currently published' }),
    frequency: frequency('How often the flow is shown'),
    tag_ids: tagIds(),
    tags: tagMap(),
    created_at: flowTimestamp('Creation time'),
    updated_at: flowTimestamp('Last update time'),
    published_at: nullable(flowTimestamp('Last publish time'), 'Last publish time; null when never published (kept on unpublish)'),
    created_by: Type.String({ description: 'User identifier of the creator' }),
    updated_by: Type.String({ description: 'User identifier of the last updater' }),
    url: resourceUrl('flow'),
  },
  { $id: 'Flow', additionalProperties: false, description: 'A guided flow' },
);
export type Flow = Static<typeof FlowSchema>;

const StepSchema = Type.Object(
  {
    id: Type.String({ description: 'Step identifier' }),
    index: Type.Integer({ minimum: 0, description: 'Position of the step' }),
    name: nullable(Type.String(), 'Step name'),
    type: Type.String({ description: 'Step type', examples: ['tooltip', 'group'] }),
    parentId: nullable(Type.String(), 'Identifier of the parent step'),
    children: Type.Array(Type.Unknown(), { description: 'Child steps' }),
    actions: freeFormObject('Actions of the step (free-form)'),
    content: nullable(freeFormObject('Content of the step (free-form)'), 'Content of the step (free-form)'),
    contentType: nullable(Type.String({ examples: ['text/html'] }), 'Media type of the content'),
    rows: Type.Array(Type.Unknown(), { description: 'Rows of the step (free-form)' }),
    traits: Type.Array(Type.Unknown(), { description: 'Traits of the step (free-form)' }),
    createdAt: epochMillis('Creation time'),
    updatedAt: epochMillis('Last update time'),
    createdBy: Type.String({ description: 'User identifier of the creator' }),
    updatedBy: Type.String({ description: 'User identifier of the last updater' }),
  },
  { additionalProperties: false, description: 'A step of a pin or mobile experience' },
);
export type Step = Static<typeof StepSchema>;

/** Pins (`/pins`) and mobile experiences (`/mobile`) share this record. */
export const ExperienceSchema = Type.Object(
  {
    id: recordId('Identifier'),
    account_id: Type.String({ description: 'Owning account' }),
    app_id: Type.String({ description: 'Application identifier' }),
    name: Type.String({ description: 'Name' }),
    published: Type.Boolean({ description: 'Whether currently published' }),
    published_at: nullable(epochMillis('Last publish time'), 'Last publish time; null when never published (kept on unpublish)'),
    state: lifecycleLabel(),
    frequency: frequency('How often the experience is shown'),
    platform: Type.String({ description: 'Platform', examples: ['web', 'ios'] }),
    type: Type.String({ description: 'Experience type', examples: ['persistent', 'mobile'] }),
    preview_url: nullable(Type.String(), 'Preview address'),
    locked_for_localization: Type.Boolean({ description: 'Localization lock' }),
    theme: nullable(Type.String(), 'Theme reference'),
    tag_ids: tagIds(),
    tags: tagMap(),
    traits: Type.Array(freeFormObject('A trait (free-form)'), { description: 'Traits of the experience' }),
    steps: Type.Array(StepSchema, { description: 'Steps, in the order they were written' }),
    created_at: epochMillis('Creation time'),
    updated_at: epochMillis('Last update time'),
    created_by: Type.String({ description: 'User identifier of the creator' }),
    updated_by: Type.String({ description: 'User identifier of the last updater' }),
    url: resourceUrl('record'),
  },
  { $id: 'Experience', additionalProperties: false, description: 'A pin or a mobile experience' },
);
export type Experience = Static<typeof ExperienceSchema>;

export const TagSchema = Type.Object(
  {
    id: recordId('Tag identifier'),
    name: Type.String({ description: 'Tag name' }),
    url: resourceUrl('tag'),
    created_at: Type.String({ format: 'date-time', description: 'Creation time (ISO 8601 with milliseconds and `Z`)' }),
    updated_at: Type.String({ format: 'date-time', description: 'Last update time (ISO 8601 with milliseconds and `Z`)' }),
    created_by: Type.String({ description: 'Creator identifier' }),
    updated_by: Type.String({ description: 'Last updater identifier' }),
  },
  { $id: 'Tag', additionalProperties: false, description: 'A tag' },
);
export type Tag = Static<typeof TagSchema>;

const filteringMode = () =>
  Type.Union([Type.Literal('allow'), Type.Literal('deny')], {
    description: '`allow`: only listed names are kept; `deny`: listed names are dropped',
  });
const nameList = (what: string) => Type.Array(Type.String({ minLength: 1 }), { description: `Names of ${what} the mode applies to` });

export const IngestionFilteringRulesSchema = Type.Object(
  {
    mode: filteringMode(),
    event_names: nameList('events'),
    user_properties: nameList('user profile properties'),
    group_properties: nameList('group profile properties'),
    updated_at: nullable(
      Type.String({ format: 'date-time' }),
      'Last change (ISO 8601 with `Z`); null for an account that never set rules (deny mode, empty lists: nothing dropped)',
    ),
  },
  { $id: 'IngestionFilteringRules', additionalProperties: false, description: "The account's ingestion filtering rules" },
);
export type IngestionFilteringRules = Static<typeof IngestionFilteringRulesSchema>;

// ---------------------------------------------------------------------------------------------------
// Admin inputs (`PUT /admin/v1/accounts/{account_id}/...`)
// ---------------------------------------------------------------------------------------------------

/** Date-times with `T`, seconds below 60 and an explicit zone: exactly the forms every client and JS parse alike. */
const DATE_TIME_INPUT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:[0-5]\\d(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$';
/** The largest time a JavaScript Date holds (year 275760). */
const MAX_EPOCH_MILLIS = 8_640_000_000_000_000;
/** An admin input time (every content kind takes the same forms). */
export const timestampInput = (description: string) =>
  Type.Union(
    [
      Type.String({ format: 'date-time', pattern: DATE_TIME_INPUT_PATTERN, examples: ['2024-05-01T09:30:00Z'] }),
      Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MILLIS }),
    ],
    { description: `${description}: ISO 8601 date-time (with zone) or milliseconds since 1970` },
  );
const optionalNullable = <S extends TSchema>(schema: S, description: string) => Type.Optional(nullable(schema, description));

/**
 * Audit fields every content input may carry; omitted ones get defaults (now, `guidepost-admin`).
 * The fields a record read from the public API adds (`url`, `tags`, `account_id`) are not named: as
 * unknown fields they are ignored, so a record read can be written back as it is.
 */
export const auditInput = {
  created_at: Type.Optional(timestampInput('Creation time; default: kept from the existing record, else now')),
  updated_at: Type.Optional(timestampInput('Last update time; default: now')),
  created_by: Type.Optional(Type.String({ description: 'Creator; default: kept from the existing record, else `guidepost-admin`' })),
  updated_by: Type.Optional(Type.String({ description: 'Last updater; default `guidepost-admin`' })),
};
/** Fields of publishable records (flows, pins, mobile). */
const publicationInput = {
  published: Type.Optional(Type.Boolean({ description: 'Default false' })),
  published_at: optionalNullable(
    timestampInput('Last publish time'),
    'Last publish time; default: now when the record becomes published, else the existing value (null when never published)',
  ),
  frequency: Type.Optional(frequency('Default `once`')),
  tag_ids: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Default []' })),
};

export const FlowUpsertSchema = Type.Object(
  {
    id: recordId('Flow identifier'),
    name: Type.String({ description: 'Flow name' }),
    ...publicationInput,
    ...auditInput,
  },
  { $id: 'FlowUpsert', description: 'A flow to create or replace' },
);
export type FlowUpsert = Static<typeof FlowUpsertSchema>;

const StepUpsertSchema = Type.Object(
  {
    id: recordId('Step identifier'),
    index: Type.Optional(Type.Integer({ minimum: 0, description: 'Default: position in `steps`' })),
    name: optionalNullable(Type.String(), 'Default null'),
    type: Type.Optional(Type.String({ minLength: 1, description: 'Default `tooltip`' })),
    parentId: optionalNullable(Type.String(), 'Default null'),
    children: Type.Optional(Type.Array(Type.Unknown(), { description: 'Default []' })),
    actions: Type.Optional(freeFormObject('Default {}')),
    content: optionalNullable(freeFormObject('Step content'), 'Default null'),
    contentType: optionalNullable(Type.String(), 'Default null'),
    rows: Type.Optional(Type.Array(Type.Unknown(), { description: 'Default []' })),
    traits: Type.Optional(Type.Array(Type.Unknown(), { description: 'Default []' })),
    createdAt: Type.Optional(timestampInput("Default: the record's creation time")),
    updatedAt: Type.Optional(timestampInput("Default: the record's update time")),
    createdBy: Type.Optional(Type.String({ description: "Default: the record's creator" })),
    updatedBy: Type.Optional(Type.String({ description: "Default: the record's last updater" })),
  },
  { description: 'A step to store' },
);
export type StepUpsert = Static<typeof StepUpsertSchema>;

export const ExperienceUpsertSchema = Type.Object(
  {
    id: recordId('Identifier'),
    name: Type.String({ description: 'Name' }),
    app_id: Type.Optional(Type.String({ description: 'Application identifier; default: the account id' })),
    state: lifecycleLabelInput(),
    platform: Type.Optional(Type.String({ minLength: 1, description: 'Default `web` (pins) or `ios` (mobile)' })),
    type: Type.Optional(Type.String({ minLength: 1, description: 'Default `persistent` (pins) or `mobile` (mobile)' })),
    preview_url: optionalNullable(Type.String(), 'Default null'),
    locked_for_localization: Type.Optional(Type.Boolean({ description: 'Default false' })),
    theme: optionalNullable(Type.String(), 'Default null'),
    traits: Type.Optional(Type.Array(freeFormObject('A trait'), { description: 'Default []' })),
    steps: Type.Optional(Type.Array(StepUpsertSchema, { description: 'Default []' })),
    ...publicationInput,
    ...auditInput,
  },
  { $id: 'ExperienceUpsert', description: 'A pin or mobile experience to create or replace' },
);
export type ExperienceUpsert = Static<typeof ExperienceUpsertSchema>;

export const TagUpsertSchema = Type.Object(
  {
    id: recordId('Tag identifier'),
    name: Type.String({ description: 'Tag name' }),
    ...auditInput,
  },
  { $id: 'TagUpsert', description: 'A tag to create or replace' },
);
export type TagUpsert = Static<typeof TagUpsertSchema>;

export const IngestionFilteringRulesInputSchema = Type.Object(
  {
    mode: filteringMode(),
    event_names: Type.Optional(nameList('events')),
    user_properties: Type.Optional(nameList('user profile properties')),
    group_properties: Type.Optional(nameList('group profile properties')),
  },
  {
    $id: 'IngestionFilteringRulesInput',
    // Closed: the rules are replaced and an omitted list becomes empty, so a misspelt list name
    // (`event_name`) ignored would clear the list it meant to set.
    additionalProperties: false,
    description: 'Replaces the rules of the account; omitted lists become empty, repeated names are kept once',
  },
);
export type IngestionFilteringRulesInput = Static<typeof IngestionFilteringRulesInputSchema>;
