import { Type } from '@sinclair/typebox';
import { defineTopic } from './topic';

/** Mail to send, written to the producer's outbox so that a committed request is never forgotten. */
export const MailRequested = defineTopic(
  'guidepost.mail.mail-requested.v1',
  'job id (or the subject of the mail)',
  Type.Object({
    to: Type.Array(Type.String({ minLength: 3 }), { minItems: 1 }),
    subject: Type.String(),
    text: Type.String(),
  }),
);
