import { Readable } from 'node:stream';
import { captureAnswer } from './answer-capture';

async function bytesOf(payload: unknown): Promise<Buffer> {
  if (Buffer.isBuffer(payload)) return payload;
  const chunks: Buffer[] = [];
  for await (const chunk of payload as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('captureAnswer', () => {
  it('takes a serialised answer (string or Buffer) as it is', async () => {
    await expect(captureAnswer('{"status":200}', 100)).resolves.toEqual({
      kind: 'whole',
      body: Buffer.from('{"status":200}'),
      payload: '{"status":200}',
    });
    const buffer = Buffer.from('abc');
    await expect(captureAnswer(buffer, 100)).resolves.toEqual({ kind: 'whole', body: buffer, payload: buffer });
    await expect(captureAnswer(undefined, 100)).resolves.toEqual({ kind: 'whole', body: Buffer.alloc(0), payload: undefined });
    await expect(captureAnswer('x'.repeat(101), 100)).resolves.toMatchObject({ kind: 'too_large' });
  });

  it('reads a streamed answer to its end, and sends those bytes', async () => {
    const captured = await captureAnswer(Readable.from([Buffer.from('{"job_id":'), Buffer.from('"j1"}')]), 100);
    expect(captured).toMatchObject({ kind: 'whole', body: Buffer.from('{"job_id":"j1"}') });
    expect((await bytesOf(captured.payload)).toString()).toBe('{"job_id":"j1"}');
  });

  it('passes a streamed answer over the limit on whole: what was read, then the rest', async () => {
    const pieces = Array.from({ length: 50 }, (_, index) => Buffer.alloc(10, String(index % 10)));
    const captured = await captureAnswer(Readable.from(pieces), 100);
    expect(captured.kind).toBe('too_large');
    expect((await bytesOf(captured.payload)).equals(Buffer.concat(pieces))).toBe(true);
  });

  it('fails when the stream fails before its end', async () => {
    const broken = new Readable({
      read() {
        this.destroy(new Error('upstream went away'));
      },
    });
    await expect(captureAnswer(broken, 100)).rejects.toThrow('upstream went away');
  });
});
