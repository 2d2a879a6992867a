import { Readable } from 'node:stream';
import { assertUtf8, withContent } from './upload-content';

const streamOf = (...chunks: (string | Buffer)[]): Readable =>
  Readable.from(
    chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)),
    { objectMode: false },
  );

async function bytesOf(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('withContent', () => {
  it('is undefined for an upload of nothing but blanks, line breaks and a byte order mark', async () => {
    expect(await withContent(streamOf())).toBeUndefined();
    expect(await withContent(streamOf('\uFEFF', '  \r\n', '\t\n'))).toBeUndefined();
  });

  it('hands the whole upload on, from its first byte, once it has content', async () => {
    const upload = await withContent(streamOf('\n  ', '{"a":1}\n', '{"a":2}'));
    expect(upload && (await bytesOf(upload))).toBe('\n  {"a":1}\n{"a":2}');
  });

  it('stops looking after a long run of blanks, without holding more of it', async () => {
    const blanks = ' '.repeat(40 * 1024);
    const upload = await withContent(streamOf(blanks, blanks, 'x'));
    expect(upload && (await bytesOf(upload))).toBe(`${blanks}${blanks}x`);
  });

  it('passes on the failure of the upload itself (413, client gone)', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('request body exceeds the 20 MB limit'));
      },
    });
    await expect(withContent(failing)).rejects.toThrow('20 MB');
  });
});

describe('assertUtf8', () => {
  it('accepts UTF-8 text, characters split across chunks included', async () => {
    const text = Buffer.from('Zoë 😀');
    await expect(assertUtf8(streamOf(text.subarray(0, 3), text.subarray(3, 6), text.subarray(6)))).resolves.toBeUndefined();
  });

  it('names the bytes holding an invalid sequence', async () => {
    await expect(assertUtf8(streamOf('abc', Buffer.from([0x61, 0xff])))).rejects.toMatchObject({
      name: 'UnreadableFile',
      code: 'invalid_request',
      detail: 'the file is not UTF-8 text (an invalid byte sequence in bytes 4 to 5)',
    });
  });

  it('refuses a file that ends inside a character', async () => {
    await expect(assertUtf8(streamOf(Buffer.from([0x61, 0xc3])))).rejects.toMatchObject({
      detail: 'the file is not UTF-8 text (it ends in the middle of a character)',
    });
  });
});
