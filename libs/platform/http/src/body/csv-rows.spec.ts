import { Readable } from 'node:stream';
import { csvRowBatches, csvRows, TEXT_AFTER_QUOTE, UNTERMINATED_QUOTE } from './csv-rows';
import { MAX_RECORD_CHARS, RECORD_TOO_LONG } from './text-lines';

const streamOf = (...chunks: (string | Buffer)[]): Readable =>
  Readable.from(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));

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

  it('trims only the blanks around a cell (tabs, CR, no-break spaces), keeping blank and empty cells in place', async () => {
    expect(await rowsOf(streamOf('a,b,c,d\n,,,\n \t, x y ,\u00a0z\u00a0,\u00e9 \r\n\u3000w\u3000,,"q" ,\u00e9\u00e9\n'))).toEqual([
      { line: 1, cells: ['a', 'b', 'c', 'd'] },
      { line: 2, cells: ['', '', '', ''] },
      { line: 3, cells: ['', 'x y', 'z', '\u00e9'] },
      { line: 4, cells: ['w', '', 'q', '\u00e9\u00e9'] },
    ]);
  });

  it('reads BOM, CRLF, quoted and blank cells and multi-byte characters alike whatever the chunking', async () => {
    const document = Buffer.from('\uFEFFid,note,n\r\n1,"a, ""b""",\r\n2,,Zoë😀\r\n\r\n3, € ,"x\r\ny"\r\n');
    const expected = [
      { line: 1, cells: ['id', 'note', 'n'] },
      { line: 2, cells: ['1', 'a, "b"', ''] },
      { line: 3, cells: ['2', '', 'Zoë😀'] },
      { line: 5, cells: ['3', '€', 'x\r\ny'] },
    ];
    expect(await rowsOf(streamOf(document))).toEqual(expected);
    for (let cut = 1; cut < document.length; cut += 1) {
      expect(await rowsOf(streamOf(document.subarray(0, cut), document.subarray(cut)))).toEqual(expected);
    }
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

  it('takes a quote inside an unquoted cell as a character, and blanks around quoted cells', async () => {
    expect(await rowsOf(streamOf('5" screen,  "a, b"  ,x\n'))).toEqual([{ line: 1, cells: ['5" screen', 'a, b', 'x'] }]);
  });

  it('reads the cells before and after a quoted cell as in a row without quotes', async () => {
    expect(await rowsOf(streamOf(' a ,,b"c, "d,e" , f,,\n"g",h\n  "i",\n'))).toEqual([
      { line: 1, cells: ['a', '', 'b"c', 'd,e', 'f', '', ''] },
      { line: 2, cells: ['g', 'h'] },
      { line: 3, cells: ['i', ''] },
    ]);
  });

  it('reads CRLF rows, quoted cells before CRLF and quoted CRLF line breaks', async () => {
    expect(await rowsOf(streamOf('a,"b"\r\n"c\r\nd",e\r\nf,g\r\n'))).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['c\r\nd', 'e'] },
      { line: 4, cells: ['f', 'g'] },
    ]);
  });

  it('reads a last row without a line break, quoted or not', async () => {
    expect(await rowsOf(streamOf('a,b\n"c",d'))).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['c', 'd'] },
    ]);
    expect(await rowsOf(streamOf('a,b\nc,"d"'))).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['c', 'd'] },
    ]);
  });

  it("keeps rows of any width: checking them is the caller's business", async () => {
    expect(await rowsOf(streamOf('a\nb,c\n'))).toEqual([
      { line: 1, cells: ['a'] },
      { line: 2, cells: ['b', 'c'] },
    ]);
  });
});

describe('csvRows against generated documents', () => {
  /** A small deterministic generator (mulberry32), so a failure can be reproduced. */
  function randomOf(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let value = Math.imul(state ^ (state >>> 15), 1 | state);
      value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
      return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
    };
  }
  const PIECES = ['a', 'b c', 'é', '😀', ',', '"', '\n', '\r\n', ' ', '1.5', ''];

  function cellOf(random: () => number): { text: string; value: string } {
    let value = '';
    for (let count = Math.floor(random() * 4); count > 0; count -= 1) value += PIECES[Math.floor(random() * PIECES.length)];
    const needsQuotes = /[",\r\n]/.test(value) || value.trim() !== value || random() < 0.2;
    return { text: needsQuotes ? `"${value.replaceAll('"', '""')}"` : value, value: value.trim() };
  }

  it('reads back the cells of random well-formed documents, whatever the chunking, with the right line numbers', async () => {
    for (let seed = 1; seed <= 150; seed += 1) {
      const random = randomOf(seed);
      const expected: { line: number; cells: string[] }[] = [];
      let text = '';
      let line = 1;
      for (let row = Math.floor(random() * 6); row >= 0; row -= 1) {
        const cells = Array.from({ length: 2 + Math.floor(random() * 3) }, () => cellOf(random));
        const rowText = cells.map((cell) => cell.text).join(',');
        expected.push({ line, cells: cells.map((cell) => cell.value) });
        line += rowText.split('\n').length;
        text += rowText + (random() < 0.5 ? '\n' : '\r\n');
      }
      const bytes = Buffer.from(text);
      const cut = Math.floor(random() * bytes.length);
      expect({ seed, rows: await rowsOf(streamOf(bytes.subarray(0, cut), bytes.subarray(cut))) }).toEqual({ seed, rows: expected });
    }
  });

  it('refuses bytes that are not UTF-8 instead of reading them as U+FFFD, naming their line, wherever the chunks break', async () => {
    // Line 3 opens a quoted cell over two lines; the bad byte sits on line 4, inside it.
    const document = Buffer.concat([Buffer.from('plan,note\npro,"é"\nfree,"two\nlines '), Buffer.from([0xc3, 0x28]), Buffer.from('"\n')]);
    for (let cut = 0; cut <= document.length; cut += 1) {
      const seen: unknown[] = [];
      const reading = (async () => {
        for await (const row of csvRows(streamOf(document.subarray(0, cut), document.subarray(cut)))) seen.push(row);
      })();
      await expect(reading).rejects.toMatchObject({
        code: 'invalid_request',
        detail: 'line 4: is not UTF-8 text (an invalid byte sequence)',
      });
      expect(seen).toEqual([
        { line: 1, cells: ['plan', 'note'] },
        { line: 2, cells: ['pro', 'é'] },
      ]);
    }
  });
});

describe('csvRows, tolerant', () => {
  async function recordsOf(...chunks: (string | Buffer)[]): Promise<unknown[]> {
    const records: unknown[] = [];
    for await (const record of csvRows(streamOf(...chunks), { tolerant: true })) records.push(record);
    return records;
  }

  it("reports a row whose cell count differs from the header's in its place and goes on", async () => {
    expect(await recordsOf('id,name\n1,Ann\n2\n\n3,Bob,extra\n4,"Cy"\n')).toEqual([
      { line: 1, cells: ['id', 'name'] },
      { line: 2, cells: ['1', 'Ann'] },
      { line: 3, error: 'has 1 cells where the header has 2' },
      { line: 5, error: 'has 3 cells where the header has 2' },
      { line: 6, cells: ['4', 'Cy'] },
    ]);
  });

  it('reports text after a closing quote and goes on after the end of that line', async () => {
    expect(await recordsOf('id,name\n1,"5" screen", more\n2,"ok"\n')).toEqual([
      { line: 1, cells: ['id', 'name'] },
      { line: 2, error: TEXT_AFTER_QUOTE },
      { line: 3, cells: ['2', 'ok'] },
    ]);
  });

  it('cuts a row with a stray quote at the end of its line, so the rows a later quote closed it on are read again', async () => {
    expect(await recordsOf('id,name\n1,"oops\n2,fine\n3,"multi\nline"\n')).toEqual([
      { line: 1, cells: ['id', 'name'] },
      { line: 2, error: TEXT_AFTER_QUOTE },
      { line: 3, cells: ['2', 'fine'] },
      { line: 4, cells: ['3', 'multi\nline'] },
    ]);
  });

  it('judges the later lines of a broken multi-line cell as rows of their own', async () => {
    expect(await recordsOf('id,name\n1,"multi\nline"x\n2,ok\n')).toEqual([
      { line: 1, cells: ['id', 'name'] },
      { line: 2, error: TEXT_AFTER_QUOTE },
      { line: 3, error: 'has 1 cells where the header has 2' },
      { line: 4, cells: ['2', 'ok'] },
    ]);
  });

  it('loses only its own row to a quote left open until the end of the file, reading the lines after it again', async () => {
    expect(await recordsOf('id,name\n1,"oops\n2,fine\n\n3,x')).toEqual([
      { line: 1, cells: ['id', 'name'] },
      { line: 2, error: UNTERMINATED_QUOTE },
      { line: 3, cells: ['2', 'fine'] },
      { line: 5, cells: ['3', 'x'] },
    ]);
  });

  it('gives up on a quote still open after the record limit, and reads on after the line where it opened', async () => {
    const quarter = 'x'.repeat(MAX_RECORD_CHARS / 4);
    const chunks = ['id,name\n1,"open\n2,fine\n', ...Array.from({ length: 5 }, () => `${quarter}\n`), 'last,row\n'];
    const records = await recordsOf(...chunks);
    expect(records.slice(0, 3)).toEqual([
      { line: 1, cells: ['id', 'name'] },
      { line: 2, error: RECORD_TOO_LONG },
      { line: 3, cells: ['2', 'fine'] },
    ]);
    // The long lines after it are read as rows again (one cell each), and so is the last one.
    expect(records.slice(3)).toEqual([
      ...Array.from({ length: 5 }, (_, index) => ({ line: 4 + index, error: 'has 1 cells where the header has 2' })),
      { line: 9, cells: ['last', 'row'] },
    ]);
  });

  it('reports an over-long line without quotes, skipping it without keeping it', async () => {
    const quarter = 'x'.repeat(MAX_RECORD_CHARS / 4);
    expect(await recordsOf('a,b\n', quarter, quarter, quarter, quarter, quarter, ',y\n1,2\n')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, error: RECORD_TOO_LONG },
      { line: 3, cells: ['1', '2'] },
    ]);
  });

  it('reports an over-long line that arrives in one chunk', async () => {
    expect(await recordsOf(`a,b\n${'x'.repeat(MAX_RECORD_CHARS + 1)},y\n1,2`)).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, error: RECORD_TOO_LONG },
      { line: 3, cells: ['1', '2'] },
    ]);
  });

  it('fails the whole stream when it is not UTF-8 text', async () => {
    await expect(recordsOf(Buffer.from([0x61, 0x0a, 0xff, 0x0a]))).rejects.toMatchObject({
      detail: expect.stringMatching(/^body: is not UTF-8 text/),
    });
  });

  it('reads the same whatever the chunk boundaries, in the middle of lines, quotes and multi-byte characters', async () => {
    const document = Buffer.from('\uFEFFid,"note"\r\n1,"Zoë, ""😀""\r\nsecond line"\r\n\r\n2,plain €\n3,"x"y\n4\n5,"open');
    const whole = await recordsOf(document);
    expect(whole).toEqual([
      { line: 1, cells: ['id', 'note'] },
      { line: 2, cells: ['1', 'Zoë, "😀"\r\nsecond line'] },
      { line: 5, cells: ['2', 'plain €'] },
      { line: 6, error: TEXT_AFTER_QUOTE },
      { line: 7, error: 'has 1 cells where the header has 2' },
      { line: 8, error: UNTERMINATED_QUOTE },
    ]);
    for (let cut = 1; cut < document.length; cut += 1) {
      expect(await recordsOf(document.subarray(0, cut), document.subarray(cut))).toEqual(whole);
    }
    expect(await recordsOf(...[...document].map((byte) => Buffer.from([byte])))).toEqual(whole);
  });

  it('hands out a chunk of rows at a time in batches', async () => {
    const batches: unknown[][] = [];
    for await (const batch of csvRowBatches(streamOf('a,b\n1,2\n', '3,4\n'))) batches.push(batch);
    expect(batches).toEqual([
      [
        { line: 1, cells: ['a', 'b'] },
        { line: 2, cells: ['1', '2'] },
      ],
      [{ line: 3, cells: ['3', '4'] }],
    ]);
  });
});
