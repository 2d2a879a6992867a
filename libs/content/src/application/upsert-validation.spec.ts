import {
  ExperienceUpsertSchema,
  FlowUpsertSchema,
  IngestionFilteringRulesInputSchema,
  StudioDocumentUpsertSchema,
  TagUpsertSchema,
} from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { compileValidator } from '@guidepost/platform-http';
import { readExperienceUpserts } from './experience-catalog.service';
import { recordsOf } from './record-batch';
import { readStudioDocumentUpserts } from './studio-document-catalog.service';

const validateFlow = compileValidator(FlowUpsertSchema);
const validateExperience = compileValidator(ExperienceUpsertSchema);
const validateTag = compileValidator(TagUpsertSchema);
const validateRules = compileValidator(IngestionFilteringRulesInputSchema);
const validateStudioDocument = compileValidator(StudioDocumentUpsertSchema);

function rejection(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error.detail;
    throw error;
  }
  return 'accepted';
}

describe('admin upsert bodies against the content schemas', () => {
  it('names the record index and the field, as the CLI shows it', () => {
    const body = [
      { id: 'a', name: 'A' },
      { id: 'b', name: 'B' },
      { id: 'c', name: 'C' },
      { id: 'd', name: 'D', tag_ids: 'x' },
    ];
    expect(rejection(() => recordsOf(body, validateFlow))).toBe('[3].tag_ids: must be array');
    expect(rejection(() => recordsOf([{ id: 'a' }], validateFlow))).toBe('[0].name: is required');
    expect(rejection(() => recordsOf([{ id: '', name: 'A' }], validateTag))).toBe('[0].id: must not be empty');
  });

  it('ignores unknown fields, the derived ones of a record read from the public API among them', () => {
    expect(recordsOf([{ id: 'a', name: 'A', _sync_id: 's-1' }], validateTag)).toEqual([{ id: 'a', name: 'A' }]);
    const exported = {
      id: 'p',
      name: 'P',
      account_id: 'other',
      url: 'https://x',
      tags: { t: true },
      tag_ids: ['t'],
      steps: [{ id: 's', _sync_id: 1 }],
    };
    expect(recordsOf([exported], validateExperience)).toEqual([{ id: 'p', name: 'P', tag_ids: ['t'], steps: [{ id: 's' }] }]);
    expect(rejection(() => recordsOf([{ id: 'a', name: 'A', _sync_id: 's-1', tag_ids: 'x' }], validateFlow))).toBe(
      '[0].tag_ids: must be array',
    );
  });

  it('refuses an unknown field in filtering rules, which replace the stored ones', () => {
    expect(rejection(() => validateRules({ mode: 'allow', event_name: ['signup'] }))).toBe('event_name: is not a known field');
  });

  it('takes times as zoned ISO 8601 strings or milliseconds, and nothing a Date cannot hold', () => {
    expect(
      rejection(() => validateFlow({ id: 'a', name: 'A', created_at: '2024-01-01T00:00:00+02:00', updated_at: 1_700_000_000_000 })),
    ).toBe('accepted');
    expect(rejection(() => validateFlow({ id: 'a', name: 'A', created_at: '2016-12-31T23:59:60Z' }))).toMatch(/^created_at: /);
    expect(rejection(() => validateFlow({ id: 'a', name: 'A', created_at: '2024-01-01 00:00:00' }))).toMatch(/^created_at: /);
    expect(rejection(() => validateFlow({ id: 'a', name: 'A', created_at: 1e20 }))).toMatch(/^created_at: /);
  });

  it('validates steps inside an experience by their position', () => {
    expect(rejection(() => recordsOf([{ id: 'p', name: 'P', steps: [{ id: 's' }, { name: 'no id' }] }], validateExperience))).toBe(
      '[0].steps.1.id: is required',
    );
  });

  it("takes a studio document with any fields of the studio's, but checks id, name and the managed fields", () => {
    const document = { id: 'lp', name: 'LP', type: 'launchpad', steps: [{ anything: true }], unknown: { deep: [1] }, published: true };
    expect(recordsOf([document], validateStudioDocument)).toEqual([document]);
    expect(rejection(() => recordsOf([{ id: 'lp' }], validateStudioDocument))).toBe('[0].name: is required');
    expect(rejection(() => recordsOf([{ id: '', name: 'LP' }], validateStudioDocument))).toBe('[0].id: must not be empty');
    expect(rejection(() => recordsOf([{ id: 'lp', name: 'LP', published: 'yes' }], validateStudioDocument))).toMatch(/^\[0\]\.published: /);
    expect(rejection(() => recordsOf([{ id: 'lp', name: 'LP', updated_at: '2024-01-01 00:00' }], validateStudioDocument))).toMatch(
      /^\[0\]\.updated_at: /,
    );
  });

  it('refuses, in every experience kind, a state that contradicts published, naming the record and the field', () => {
    for (const read of [readExperienceUpserts, readStudioDocumentUpserts]) {
      expect(
        rejection(() =>
          read([
            { id: 'a', name: 'A', published: true },
            { id: 'b', name: 'B', state: 'PUBLISHED' },
          ]),
        ),
      ).toBe('[1].state: can be PUBLISHED only when published is true');
      expect(rejection(() => read({ id: 'a', name: 'A', published: true, state: 'ARCHIVED' }))).toBe(
        "state: must be PUBLISHED (or left out) when published is true, not 'ARCHIVED'",
      );
      expect(
        read([
          { id: 'a', name: 'A', published: true, state: 'PUBLISHED' },
          { id: 'b', name: 'B', state: 'ARCHIVED' },
        ]),
      ).toHaveLength(2);
    }
  });

  it('accepts filtering rules with only a mode and rejects an unknown mode', () => {
    expect(validateRules({ mode: 'allow' })).toEqual({ mode: 'allow' });
    expect(rejection(() => validateRules({ mode: 'block' }))).toMatch(/^mode: /);
  });
});
