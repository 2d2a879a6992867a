import { Readable } from 'node:stream';
import { csvRows } from './csv-rows';

const streamOf = (...chunks: string[]): Readable => Readable.from(chunks.map((chunk) => Buffer.from(chunk)));

async function rowsOf(stream: Readable): Promise<unknown[]> {
  const rows: unknown[] = [];
  for await (const row of csvRows(stream)) rows.push(row);
  return rows;
}

describe('csvRows', () => {
  it('yields trimmed cells with the line each row starts on, skipping blank lines', async () => {
    expect(await rowsOf(streamOf('id,name\n\n   \n  1 ,  Ann \r\n2,Bob'))).toEqual([
      { line: 1, cells: ['id', 'name'] },
      { line: 4, cells: ['1', 'Ann'] },
      { line: 5, cells: ['2', 'Bob'] },
    ]);
  });

  it('keeps quoted line breaks, commas and quotes, counting lines correctly after them', async () => {
    expect(await rowsOf(streamOf('a,"multi\nline, ""quoted"""\nb,c\n'))).toEqual([
      { line: 1, cells: ['a', 'multi\nline, "quoted"'] },
      { line: 3, cells: ['b', 'c'] },
    ]);
  });

  it('reads rows whose quoted cells span chunk boundaries', async () => {
    expect(await rowsOf(streamOf('x,"one\n', 'two\n', 'three"\ny,', 'z\n'))).toEqual([
      { line: 1, cells: ['x', 'one\ntwo\nthree'] },
      { line: 4, cells: ['y', 'z'] },
    ]);
  });

  it('names the line where an unterminated quote starts', async () => {
    await expect(rowsOf(streamOf('a\nb\n"c,d\ne\n'))).rejects.toMatchObject({
      code: 'invalid_request',
      detail: 'line 3: quoted field unterminated',
    });
  });

  it('names the line of a malformed quote', async () => {
    await expect(rowsOf(streamOf('a\n"b"c,d\n'))).rejects.toMatchObject({ detail: expect.stringMatching(/^line 2: /) });
  });

  it('yields nothing for an empty document', async () => {
    expect(await rowsOf(streamOf(''))).toEqual([]);
  });
});
