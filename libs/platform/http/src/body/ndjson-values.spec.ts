import { Readable } from 'node:stream';
import { ndjsonValues } from './ndjson-values';
import { MAX_RECORD_CHARS } from './text-lines';

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
});
