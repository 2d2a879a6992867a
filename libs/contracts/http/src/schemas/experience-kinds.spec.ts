import { EXPERIENCE_KINDS, operationStemsOf, resourceNameOf, tagOf } from './experience-kinds';

describe('EXPERIENCE_KINDS', () => {
  it('serves the kinds real clients call beyond the contract (docs/api-contract.md#beyond-the-contract), beside pins and mobile', () => {
    expect(EXPERIENCE_KINDS.map((kind) => kind.collection)).toEqual([
      'pins',
      'mobile',
      'launchpads',
      'banners',
      'checklists',
      'flows-v2',
      'embeds',
      'nps',
    ]);
  });

  it('keeps pins and mobile as typed records and the new kinds as the studio document', () => {
    const typed = EXPERIENCE_KINDS.filter((kind) => kind.model === 'experience').map((kind) => kind.collection);
    expect(typed).toEqual(['pins', 'mobile']);
  });

  it('has no two kinds at one path, under one parameter name or with one operation id', () => {
    for (const names of [
      EXPERIENCE_KINDS.map((kind) => kind.collection),
      EXPERIENCE_KINDS.map((kind) => kind.parameter),
      EXPERIENCE_KINDS.flatMap((kind) => operationStemsOf(kind)),
    ]) {
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('uses path segments that need no encoding', () => {
    for (const kind of EXPERIENCE_KINDS) expect(kind.collection).toMatch(/^[a-z0-9_-]+$/);
  });

  it('names a kind in errors, tags and operation ids from its nouns', () => {
    const mobile = EXPERIENCE_KINDS[1];
    expect([resourceNameOf(mobile), tagOf(mobile), ...operationStemsOf(mobile)]).toEqual([
      'Mobile experience',
      'Mobile experiences',
      'MobileExperience',
      'MobileExperiences',
    ]);
    const flowsV2 = EXPERIENCE_KINDS.find((kind) => kind.collection === 'flows-v2')!;
    expect(operationStemsOf(flowsV2)).toEqual(['FlowV2', 'FlowsV2']);
  });
});
