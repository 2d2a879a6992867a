import { Readable } from 'node:stream';
import { ndjsonValueBatches, ndjsonValues } from './ndjson-values';
import { MAX_RECORD_CHARS, RECORD_TOO_LONG } from './text-lines';

const streamOf = (...chunks: (string | Buffer)[]): Readable =>
  Readable.from(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));

async function valuesOf(stream: Readable): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of ndjsonValues(stream)) values.push(value);
  return values;
}

describe('ndjsonValues', () => {
  it('yields one value per line with its line number, skipping blank lines and indentation', async () => {
    expect(await valuesOf(streamOf('{"a":1}\r\n\n   \n\t{"b":2}  \n"c"'))).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 4, value: { b: 2 } },
      { line: 5, value: 'c' },
    ]);
  });

  it('joins lines and characters split across chunks', async () => {
    const accent = Buffer.from('"é"\n');
    expect(await valuesOf(streamOf('{"na', 'me":"x"}\n', accent.subarray(0, 2), accent.subarray(2)))).toEqual([
      { line: 1, value: { name: 'x' } },
      { line: 2, value: 'é' },
    ]);
  });

  it('ignores a byte order mark', async () => {
    expect(await valuesOf(streamOf('\uFEFF{"a":1}\n'))).toEqual([{ line: 1, value: { a: 1 } }]);
  });

  it('names the line that is not JSON', async () => {
    await expect(valuesOf(streamOf('{"a":1}\n\n{"a":\n'))).rejects.toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/^line 3: is not valid JSON \(.+\)$/),
    });
  });

  it('refuses a line longer than the record limit instead of buffering it', async () => {
    const long = 'x'.repeat(MAX_RECORD_CHARS / 4);
    await expect(valuesOf(streamOf('1\n', long, long, long, long, long))).rejects.toMatchObject({
      detail: expect.stringMatching(/^line 2: record is longer than 1 MB/),
    });
  });

  it('refuses bytes that are not UTF-8, naming their line after the values before it, wherever the chunks break', async () => {
    const document = Buffer.concat([Buffer.from('"a"\n"é"\n\n"b'), Buffer.from([0xff]), Buffer.from('"\n"c"\n')]);
    for (let cut = 0; cut <= document.length; cut += 1) {
      const seen: unknown[] = [];
      const reading = (async () => {
        for await (const value of ndjsonValues(streamOf(document.subarray(0, cut), document.subarray(cut)))) seen.push(value);
      })();
      await expect(reading).rejects.toMatchObject({
        code: 'invalid_request',
        detail: 'line 4: is not UTF-8 text (an invalid byte sequence)',
      });
      expect(seen).toEqual([
        { line: 1, value: 'a' },
        { line: 2, value: 'é' },
      ]);
    }
  });

  it('names the line of a text that ends in the middle of a character', async () => {
    await expect(valuesOf(streamOf('"a"\n"', Buffer.from([0xe2, 0x82])))).rejects.toMatchObject({
      detail: 'line 2: is not UTF-8 text (it ends in the middle of a character)',
    });
  });

  it.each([
    ['a NUL character', '"ok"\n{"a":{"b":"x\\u0000"}}\n', 'line 2: a.b: contains a NUL character (\\u0000), which cannot be stored'],
    ['a lone surrogate', '"\\ud800"\n', 'line 1: contains a lone UTF-16 surrogate (\\ud800 to \\udfff), which is not a character'],
    [
      'a number beyond a double',
      '{"n":[1,-1e400]}\n',
      'line 1: n.1: is a number too large to store (beyond ±1.8e308; JSON would write it as null)',
    ],
    ['nesting beyond 64 levels', `${'['.repeat(65)}${']'.repeat(65)}\n`, 'line 1: is nested more than 64 levels deep (arrays and objects)'],
  ])('refuses a line holding %s, naming the line and the path', async (_case, text, detail) => {
    await expect(valuesOf(streamOf(text))).rejects.toMatchObject({ code: 'invalid_request', detail });
  });

  it('takes 64 levels of nesting and well-formed surrogate pairs', async () => {
    const deep = `${'['.repeat(64)}"😀"${']'.repeat(64)}`;
    expect(await valuesOf(streamOf(`${deep}\n`))).toEqual([{ line: 1, value: JSON.parse(deep) }]);
  });
});

describe('ndjsonValues, tolerant', () => {
  async function recordsOf(...chunks: (string | Buffer)[]): Promise<unknown[]> {
    const records: unknown[] = [];
    for await (const record of ndjsonValues(streamOf(...chunks), { tolerant: true })) records.push(record);
    return records;
  }

  it('reports a line that is not JSON in its place and goes on with the next', async () => {
    expect(await recordsOf('{"a":1}\n{"a":\n\n[1,2]\nnope\n"last"')).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 2, error: expect.stringMatching(/^is not valid JSON \(.+\)$/) },
      { line: 4, value: [1, 2] },
      { line: 5, error: expect.stringMatching(/^is not valid JSON/) },
      { line: 6, value: 'last' },
    ]);
  });

  it('skips blank lines, indentation, CRLF and a byte order mark', async () => {
    expect(await recordsOf('\uFEFF  {"a":1}\r\n\r\n \t \r\n\t2\r\n')).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 4, value: 2 },
    ]);
  });

  it('reports an over-long line spread over chunks without keeping it, then reads on with the right line numbers', async () => {
    const quarter = 'x'.repeat(MAX_RECORD_CHARS / 4);
    const records = await recordsOf('1\n', '"', quarter, quarter, quarter, quarter, quarter, quarter, '"\n2\n', '3');
    expect(records).toEqual([
      { line: 1, value: 1 },
      { line: 2, error: RECORD_TOO_LONG },
      { line: 3, value: 2 },
      { line: 4, value: 3 },
    ]);
  });

  it('reports an over-long line that arrives in one chunk', async () => {
    const long = `"${'x'.repeat(MAX_RECORD_CHARS)}"`;
    expect(await recordsOf(`1\n${long}\n2`)).toEqual([
      { line: 1, value: 1 },
      { line: 2, error: RECORD_TOO_LONG },
      { line: 3, value: 2 },
    ]);
  });

  it('reports an over-long last line without a line break', async () => {
    const quarter = 'x'.repeat(MAX_RECORD_CHARS / 4);
    expect(await recordsOf('1\n', quarter, quarter, quarter, quarter, quarter)).toEqual([
      { line: 1, value: 1 },
      { line: 2, error: RECORD_TOO_LONG },
    ]);
  });

  it('fails the whole stream when it is not UTF-8 text, naming where', async () => {
    await expect(recordsOf('"a"\n', Buffer.from([0x22, 0xc3, 0x28, 0x22, 0x0a]))).rejects.toMatchObject({
      code: 'invalid_request',
      detail: 'body: is not UTF-8 text (an invalid byte sequence in bytes 5 to 9)',
    });
  });

  it('reads the same whatever the chunk boundaries, in the middle of lines and of multi-byte characters', async () => {
    const document = Buffer.from('{"name":"Zoë 😀"}\r\n\nnot json\n  ["€", 2]\n"ü"');
    const whole = await recordsOf(document);
    expect(whole).toEqual([
      { line: 1, value: { name: 'Zoë 😀' } },
      { line: 3, error: expect.stringMatching(/^is not valid JSON/) },
      { line: 4, value: ['€', 2] },
      { line: 5, value: 'ü' },
    ]);
    for (let cut = 1; cut < document.length; cut += 1) {
      expect(await recordsOf(document.subarray(0, cut), document.subarray(cut))).toEqual(whole);
    }
    expect(await recordsOf(...[...document].map((byte) => Buffer.from([byte])))).toEqual(whole);
  });

  it('hands out a chunk of records at a time in batches', async () => {
    const batches: unknown[][] = [];
    for await (const batch of ndjsonValueBatches(streamOf('1\n2\n', 'x\n3'))) batches.push(batch);
    expect(batches).toEqual([
      [
        { line: 1, value: 1 },
        { line: 2, value: 2 },
      ],
      [{ line: 3, error: expect.any(String) }],
      [{ line: 4, value: 3 }],
    ]);
  });
});
