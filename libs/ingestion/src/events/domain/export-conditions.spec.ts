import { MAX_CONDITION_DEPTH, MAX_CONDITION_VALUES, MAX_CONDITIONS, MAX_CONDITIONS_TEXT_LENGTH } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import { compileExportConditions, type ConditionField } from './export-conditions';

/** The 400 detail a list of conditions is refused with. */
function refusal(conditions: unknown[]): string {
  try {
    compileExportConditions(conditions);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_request');
    return (error as DomainError).detail;
  }
  throw new Error('the conditions were accepted');
}

describe('compileExportConditions', () => {
  it('selects everything without conditions', () => {
    expect(compileExportConditions([])).toEqual({ sql: '1', params: {} });
  });

  it('compares columns with placeholders, never with the values themselves', () => {
    expect(compileExportConditions([['name', '==', "x' OR 1=1 --"]])).toEqual({
      sql: 'identity((name IN {p0:Array(String)}))',
      params: { p0: ["x' OR 1=1 --"] },
    });
    expect(compileExportConditions([['user_id', 'not like', 'u%']])).toEqual({
      sql: 'identity((NOT (user_id LIKE {p0:String})))',
      params: { p0: 'u%' },
    });
    expect(compileExportConditions([['group_id', 'ilike', 'G_']])).toEqual({
      sql: 'identity((group_id ILIKE {p0:String}))',
      params: { p0: 'G_' },
    });
  });

  it('narrows an equality every match meets on a field with a stored text by that column, outside the one predicate', () => {
    const flow = (field: string): ConditionField =>
      field === 'flow'
        ? { kind: 'attribute', keys: [['flowId'], ['flow_id']], stored: { column: 'flow_id', unread: "'?'" } }
        : { kind: 'column', column: 'name' };
    const narrowings = (conditions: unknown[]) => compileExportConditions(conditions, flow).sql.split(' AND identity(')[0];
    expect(
      compileExportConditions(
        [
          ['flow', '==', 'f1'],
          ['name', '==', 'x'],
        ],
        flow,
      ),
    ).toMatchObject({
      sql: expect.stringMatching(/^\(flow_id IN \{p3:Array\(String\)\} OR flow_id = '\?'\) AND identity\(/),
      params: { p3: ['f1'] },
    });
    expect(narrowings([['and', ['flow', 'in', ['f1', 'f2']], ['name', '==', 'x']]])).toMatch(/^\(flow_id IN /);
    // Not where a match need not meet it, nor for values the column renders otherwise.
    for (const conditions of [
      [['or', ['flow', '==', 'f1'], ['name', '==', 'x']]],
      [['flow', '!=', 'f1']],
      [['flow', 'not in', ['f1']]],
      [['flow', 'like', 'f%']],
      [['flow', 'in', ['f1', 7]]],
    ]) {
      expect(compileExportConditions(conditions, flow).sql).toMatch(/^identity\(/);
    }
  });

  it('joins top-level conditions with AND and nests conjunctions', () => {
    const compiled = compileExportConditions([
      ['name', '!=', 'a'],
      ['or', ['user_id', 'in', ['u1', 'u2']], ['and', ['group_id', 'is null'], ['name', 'not in', ['b']]]],
    ]);
    expect(compiled.sql).toBe(
      "identity((NOT (name IN {p0:Array(String)})) AND ((user_id IN {p1:Array(String)}) OR ((group_id = '') AND (NOT (name IN {p2:Array(String)})))))",
    );
    expect(compiled.params).toEqual({ p0: ['a'], p1: ['u1', 'u2'], p2: ['b'] });
  });

  it('compares a number with a text column as its decimal text', () => {
    expect(compileExportConditions([['user_id', 'in', [42, '7']]]).params).toEqual({ p0: ['42', '7'] });
  });

  it('treats the ids as null when empty, and a name or timestamp as never null', () => {
    expect(compileExportConditions([['user_id', 'is not null']]).sql).toBe("identity((NOT (user_id = '')))");
    expect(compileExportConditions([['name', 'is null']]).sql).toBe('identity((0))');
    expect(compileExportConditions([['timestamp', 'is not null']]).sql).toBe('identity((NOT (0)))');
  });

  it('reads timestamps as ISO 8601 with a zone or milliseconds, to the millisecond in UTC', () => {
    const compiled = compileExportConditions([['timestamp', 'in', ['2024-05-01T05:30:00.123-04:00', 1714555800000]]]);
    expect(compiled).toEqual({
      sql: "identity((timestamp IN {p0:Array(DateTime64(3, 'UTC'))}))",
      params: { p0: ['2024-05-01 09:30:00.123', '2024-05-01 09:30:00.000'] },
    });
  });

  it('compares attributes by their JSON rendering, key and values as placeholders', () => {
    expect(compileExportConditions([['flow_id', '==', 'welcome']])).toEqual({
      sql: 'identity((has(JSONExtractArrayRaw({p0:String}), (attribute_values[{p1:String}] AS condition_value_0))))',
      params: { p0: '["welcome"]', p1: 'flow_id' },
    });
    expect(compileExportConditions([['score', 'not in', [1, '1', true]]]).params).toEqual({ p0: '[1,"1",true]', p1: 'score' });
  });

  it('matches like patterns on an attribute present and not null, as text', () => {
    expect(compileExportConditions([['plan', 'like', 'pro%']]).sql).toBe(
      "identity((NOT ((attribute_values[{p1:String}] AS condition_value_0) IN ('', 'null')) AND " +
        "(if(startsWith(condition_value_0, '\"'), JSONExtractString(condition_value_0), condition_value_0) AS condition_value_1) LIKE {p0:String}))",
    );
  });

  it('reads an attribute compared in many conditions once, under one placeholder and one alias', () => {
    const compiled = compileExportConditions([
      ['plan', 'not like', '%a%'],
      ['or', ['plan', 'not like', '%b%'], ['plan', 'is null']],
    ]);
    expect(compiled.sql).toBe(
      "identity((NOT (NOT ((attribute_values[{p1:String}] AS condition_value_0) IN ('', 'null')) AND " +
        "(if(startsWith(condition_value_0, '\"'), JSONExtractString(condition_value_0), condition_value_0) AS condition_value_1) LIKE {p0:String})) AND " +
        "((NOT (NOT (condition_value_0 IN ('', 'null')) AND condition_value_1 LIKE {p2:String})) OR (condition_value_0 IN ('', 'null'))))",
    );
    expect(compiled.params).toEqual({ p0: '%a%', p1: 'plan', p2: '%b%' });
  });

  it('takes null attributes to be absent ones or JSON null', () => {
    expect(compileExportConditions([['nps_feedback', 'is not null']])).toEqual({
      sql: "identity((NOT ((attribute_values[{p0:String}] AS condition_value_0) IN ('', 'null'))))",
      params: { p0: 'nps_feedback' },
    });
  });

  it('keeps surrogate pairs (emoji) in fields and values', () => {
    expect(compileExportConditions([['mood😀', '==', '😀']]).params).toEqual({ p0: '["😀"]', p1: 'mood😀' });
  });

  it('takes like patterns whose backslashes all escape something', () => {
    expect(compileExportConditions([['name', 'like', '100\\%']]).params).toEqual({ p0: '100\\%' });
    expect(compileExportConditions([['name', 'like', 'a\\\\']]).params).toEqual({ p0: 'a\\\\' });
  });

  it.each<[string, unknown[], string]>([
    [
      'an unknown operator',
      [
        ['name', '==', 'a'],
        ['or', ['name', '==', 'b'], ['name', '~', 'c']],
      ],
      'conditions[1][2][1]: operator "~" is not supported; use one of "==", "!=", "like", "not like", "ilike", "not ilike", "in", "not in", "is null", "is not null"',
    ],
    [
      'an unknown conjunction',
      [['xor', ['name', '==', 'a'], ['name', '==', 'b']]],
      'conditions[0][0]: conjunction "xor" is not supported; use one of "and", "or"',
    ],
    [
      'a conjunction without conditions',
      [['or']],
      'conditions[0]: a condition is [field, operator, value], [field, "is null" | "is not null"] or [conjunction, condition, ...]',
    ],
    ['a condition that is not an array', ['name == a'], 'conditions[0]: a condition is'],
    ['a field that is not text', [[3, '==', 'a']], 'conditions[0][0]: the field must be a non-empty string'],
    ['an empty field', [['', '==', 'a']], 'conditions[0][0]: the field must be a non-empty string'],
    ['a comparison without value', [['name', '==']], 'conditions[0]: operator "==" takes one value: [field, "==", value]'],
    ['a comparison with two values', [['name', '==', 'a', 'b']], 'conditions[0]: operator "==" takes one value'],
    ['a null test with a value', [['name', 'is null', 'x']], 'conditions[0]: operator "is null" takes no value: [field, "is null"]'],
    ['an object value', [['flow_id', '==', { a: 1 }]], 'conditions[0][2]: the value must be a string, number or boolean'],
    ['a null value', [['flow_id', '!=', null]], 'conditions[0][2]: the value must be a string, number or boolean'],
    [
      'membership without an array',
      [['name', 'in', 'a']],
      'conditions[0][2]: operator "in" takes a non-empty array of strings, numbers or booleans',
    ],
    ['an empty membership list', [['name', 'not in', []]], 'conditions[0][2]: operator "not in" takes a non-empty array'],
    ['a bad item in a list', [['flow_id', 'in', ['a', ['b']]]], 'conditions[0][2][1]: the value must be a string, number or boolean'],
    [
      'a like pattern that is not text',
      [['name', 'like', 5]],
      'conditions[0][2]: operator "like" takes a text pattern (% and _ are wildcards)',
    ],
    [
      'a boolean compared with a text column',
      [['user_id', 'in', ['u1', true]]],
      'conditions[0][2][1]: field "user_id" holds text; compare it with a string',
    ],
    [
      'like on the timestamp',
      [['timestamp', 'like', '2024%']],
      'conditions[0][1]: field "timestamp" takes ==, !=, in, not in, is null or is not null',
    ],
    [
      'a timestamp without a zone',
      [['timestamp', '==', '2024-05-01T09:30:00']],
      'conditions[0][2]: field "timestamp" takes ISO 8601 date-times with Z or an offset',
    ],
    [
      'a timestamp that is no instant',
      [['timestamp', 'in', [0, '2024-02-30T00:00:00Z']]],
      'conditions[0][2][1]: field "timestamp" takes ISO 8601',
    ],
    [
      'a timestamp in year 0000, which the store reads as this year',
      [['timestamp', '==', '0000-01-01T00:00:00Z']],
      'conditions[0][2]: field "timestamp" takes instants in the years 1900 to 2299',
    ],
    [
      'a timestamp after 2299',
      [['timestamp', 'in', [0, '2300-01-01T00:00:00Z']]],
      'conditions[0][2][1]: field "timestamp" takes instants in the years 1900 to 2299',
    ],
    [
      'a value with NUL',
      [
        ['name', '==', 'a'],
        ['name', '==', 'sign\u0000up'],
      ],
      'conditions[1][2]: contains a NUL character',
    ],
    ['a list item with NUL', [['name', 'in', ['a', 'b\u0000']]], 'conditions[0][2][1]: contains a NUL character'],
    ['a pattern with NUL', [['or', ['name', '==', 'a'], ['name', 'like', '%\u0000']]], 'conditions[0][2][2]: contains a NUL character'],
    ['a field with NUL', [['flow\u0000id', '==', 'a']], 'conditions[0][0]: contains a NUL character'],
    ['a value with a lone surrogate', [['name', '==', 'a\udc00']], 'conditions[0][2]: contains a lone UTF-16 surrogate'],
    ['a field with a lone surrogate', [['k\ud800', 'is null']], 'conditions[0][0]: contains a lone UTF-16 surrogate'],
    ['a like pattern ending with a lone backslash', [['name', 'like', 'a\\']], 'conditions[0][2]: the pattern ends with a lone backslash'],
    [
      'an ilike pattern ending with three backslashes',
      [['plan', 'not ilike', '\\\\\\']],
      'conditions[0][2]: the pattern ends with a lone backslash',
    ],
  ])('refuses %s, naming where', (_case, conditions, detail) => {
    expect(refusal(conditions)).toContain(detail);
  });

  it('refuses conjunctions nested too deep', () => {
    let condition: unknown[] = ['name', '==', 'a'];
    for (let depth = 0; depth <= MAX_CONDITION_DEPTH; depth += 1) condition = ['or', condition];
    expect(refusal([condition])).toMatch(/^conditions\[0\](\[1\])*: conjunctions nest more than 16 levels deep$/);
  });

  it('refuses more compared values than the limit, all conditions together', () => {
    const half = Array.from({ length: MAX_CONDITION_VALUES / 2 }, (_, index) => `v${index}`);
    expect(() =>
      compileExportConditions([
        ['a', 'in', half],
        ['b', 'in', half],
      ]),
    ).not.toThrow();
    expect(
      refusal([
        ['a', 'in', half],
        ['b', 'in', half],
        ['name', '==', 'x'],
      ]),
    ).toBe('conditions[2][2]: the conditions compare more than 10000 values in all');
  });
});

describe('the limits of one request', () => {
  const leaf = (index: number): unknown[] => ['name', '==', `n${index}`];

  it(`takes ${MAX_CONDITIONS} conditions, nested or not, and refuses one more`, () => {
    const flat = Array.from({ length: MAX_CONDITIONS }, (_, index) => leaf(index));
    expect(() => compileExportConditions(flat)).not.toThrow();
    expect(refusal([...flat, leaf(MAX_CONDITIONS)])).toBe(
      `conditions[${MAX_CONDITIONS}]: the request has more than ${MAX_CONDITIONS} conditions in all`,
    );
    expect(
      refusal([
        ['or', ...flat],
        ['and', leaf(0), leaf(1)],
      ]),
    ).toBe(`conditions[1][1]: the request has more than ${MAX_CONDITIONS} conditions in all`);
  });

  it('refuses 100 000 conditions at once, without compiling them all', () => {
    const many = Array.from({ length: 100_000 }, (_, index) => leaf(index));
    const started = process.hrtime.bigint();
    expect(refusal(many)).toMatch(/^conditions\[1000\]: /);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
  });

  it(`refuses field names and values longer than ${MAX_CONDITIONS_TEXT_LENGTH} characters in all`, () => {
    const half = 'x'.repeat(MAX_CONDITIONS_TEXT_LENGTH / 2);
    expect(() =>
      compileExportConditions([
        ['a', '==', half.slice(2)],
        ['b', 'like', half],
      ]),
    ).not.toThrow();
    expect(
      refusal([
        ['a', '==', half],
        ['b', 'in', ['y', half]],
      ]),
    ).toBe(
      `conditions[1][2][1]: the field names and values of the conditions are longer than ${MAX_CONDITIONS_TEXT_LENGTH} characters in all`,
    );
    expect(
      refusal([
        ['a', '==', half],
        [half, 'is null'],
      ]),
    ).toMatch(/^conditions\[1\]\[0\]: the field names and values/);
  });
});
