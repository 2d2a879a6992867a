import { Readable } from 'node:stream';
import { compileValidator, type InboundBody } from '@guidepost/platform-http';
import { PROFILE_UPDATE_MAX_PROPERTIES, UserProfileUpdateSchema } from '@guidepost/contracts-http';
import { profilePropertiesOf } from './profile-body';

const parseJson = compileValidator(UserProfileUpdateSchema);
const csv = (text: string): InboundBody => ({ kind: 'records', format: 'csv', origin: 'body', stream: Readable.from([Buffer.from(text)]) });

describe('profilePropertiesOf', () => {
  it('takes a JSON object as it is, types included', async () => {
    const value = { plan: 'pro', seats: 3, beta: true, tags: ['a'], nested: { x: null } };
    expect(await profilePropertiesOf({ kind: 'json', value }, parseJson)).toEqual(value);
  });

  it.each([[[1, 2]], [null], ['text'], [7]])('refuses the JSON body %j, naming the body', async (value) => {
    await expect(profilePropertiesOf({ kind: 'json', value }, parseJson)).rejects.toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/^body: /),
    });
  });

  it(`takes ${PROFILE_UPDATE_MAX_PROPERTIES} properties, as JSON or CSV, and refuses one more, naming the limit`, async () => {
    const names = Array.from({ length: PROFILE_UPDATE_MAX_PROPERTIES + 1 }, (_, index) => `p${index}`);
    const json = (count: number) => Object.fromEntries(names.slice(0, count).map((name) => [name, 1]));
    const csvOf = (count: number) =>
      csv(
        `${names.slice(0, count).join(',')}\n${names
          .slice(0, count)
          .map(() => '1')
          .join(',')}\n`,
      );
    expect(Object.keys(await profilePropertiesOf({ kind: 'json', value: json(PROFILE_UPDATE_MAX_PROPERTIES) }, parseJson))).toHaveLength(
      PROFILE_UPDATE_MAX_PROPERTIES,
    );
    expect(Object.keys(await profilePropertiesOf(csvOf(PROFILE_UPDATE_MAX_PROPERTIES), parseJson))).toHaveLength(
      PROFILE_UPDATE_MAX_PROPERTIES,
    );
    const tooMany = { code: 'invalid_request', detail: `body: must NOT have more than ${PROFILE_UPDATE_MAX_PROPERTIES} properties` };
    await expect(profilePropertiesOf({ kind: 'json', value: json(PROFILE_UPDATE_MAX_PROPERTIES + 1) }, parseJson)).rejects.toMatchObject(
      tooMany,
    );
    await expect(profilePropertiesOf(csvOf(PROFILE_UPDATE_MAX_PROPERTIES + 1), parseJson)).rejects.toMatchObject(tooMany);
  });

  it('refuses a missing body, naming it', async () => {
    await expect(profilePropertiesOf({ kind: 'empty' }, parseJson)).rejects.toMatchObject({
      detail: expect.stringMatching(/^body: is required/),
    });
  });

  it('reads CSV as a header and one row, typing the cells and leaving empty cells out', async () => {
    expect(await profilePropertiesOf(csv('plan,seats,beta,zip,note,name\r\npro,12,true,007,,42\r\n'), parseJson)).toEqual({
      plan: 'pro',
      seats: 12,
      beta: true,
      zip: '007',
      name: '42',
    });
  });

  it.each([
    ['', /^body: CSV needs a header line/],
    ['plan,seats\n', /^line 2: a row of values is required/],
    ['plan,seats\npro\n', /^line 2: has 1 values, the header names 2 columns/],
    ['plan\npro\nfree\n', /^line 3: a profile update takes exactly one row/],
    ['plan,plan\npro,free\n', /^line 1: column 'plan' appears twice/],
  ])('refuses the CSV %j, naming the line', async (text, detail) => {
    await expect(profilePropertiesOf(csv(text), parseJson)).rejects.toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(detail),
    });
  });
});
