import { SetMetadata } from '@nestjs/common';
import type { BodyFormat } from './inbound-body';

export const ACCEPTS_BODY = 'guidepost:acceptsBody';

/**
 * The request body formats an endpoint takes. Requests with another Content-Type get 415 naming the
 * accepted types; endpoints without this decorator ignore any body.
 */
export const AcceptsBody = (...formats: BodyFormat[]): MethodDecorator => SetMetadata(ACCEPTS_BODY, formats);
