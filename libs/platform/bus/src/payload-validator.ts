import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { BusMessage, Topic } from '@guidepost/contracts-events';

/** Thrown when a message does not match its topic's schema; it can never succeed, so it is dead-lettered. */
export class InvalidMessageError extends Error {
  readonly permanent = true;
  constructor(topic: string, messageId: string, reason: string) {
    super(`message ${messageId} on ${topic} does not match its schema: ${reason}`);
    this.name = 'InvalidMessageError';
  }
}

const ajv = addFormats(new Ajv({ allErrors: false, strict: false }));
const compiled = new Map<string, ValidateFunction>();

/** Validates a received payload against its topic's schema (compiled once per topic). */
export function assertValidPayload(topic: Topic, message: BusMessage): void {
  let validate = compiled.get(topic.name);
  if (!validate) {
    validate = ajv.compile(topic.schema);
    compiled.set(topic.name, validate);
  }
  if (!validate(message.payload)) {
    throw new InvalidMessageError(topic.name, message.id, ajv.errorsText(validate.errors));
  }
}
