import { basename } from 'node:path';
import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import { DomainError, notFound } from '@guidepost/platform-errors';
import { BlobLinkSigner } from './blob-link-signer';
import { BlobStore } from './blob-store.port';

/**
 * Serves signed download links (`GET /blobs/<key>?expires=..&signature=..`), for example the export
 * link mailed to a user. The signature is the credential: no API key is involved.
 */
@Controller('blobs')
export class BlobDownloadController {
  constructor(
    private readonly store: BlobStore,
    private readonly signer: BlobLinkSigner,
  ) {}

  @Get('*')
  async download(
    @Param('*') key: string,
    @Query('expires') expires: unknown,
    @Query('signature') signature: unknown,
  ): Promise<StreamableFile> {
    const verdict = this.signer.verify(key, expires, signature);
    switch (verdict) {
      case 'invalid':
        throw new DomainError('forbidden', 'The download link is not valid: expires or signature is missing or does not match');
      case 'expired':
        throw new DomainError('forbidden', 'The download link has expired');
      case 'valid':
        break;
    }
    // A valid signature means this service signed the key, so it passed key validation then.
    const blob = await this.store.open(key);
    if (!blob) throw notFound('Blob', key);
    return new StreamableFile(blob.stream, {
      type: blob.contentType,
      length: blob.bytes,
      disposition: `attachment; filename="${basename(key)}"`,
    });
  }
}
