import { KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { PermanentPublishError, publishFailure, TransientPublishError } from './publish-errors';

function protocolError(type: string, retriable: boolean): KafkaJSProtocolError {
  return new KafkaJSProtocolError({ type, code: 0, retriable, message: `broker said ${type}` } as unknown as Error);
}

describe('publish failures', () => {
  it('marks a message the broker will never accept as permanent, naming the topic and the reason', () => {
    const failure = publishFailure(protocolError('MESSAGE_TOO_LARGE', false), ['guidepost.test.big.v1']);
    expect(failure).toBeInstanceOf(PermanentPublishError);
    expect(failure).toMatchObject({
      permanent: true,
      message: 'publishing to guidepost.test.big.v1 can never succeed: broker said MESSAGE_TOO_LARGE',
    });
  });

  it('finds the broker answer inside kafkajs retry wrappers', () => {
    const wrapped = new KafkaJSNumberOfRetriesExceeded(protocolError('INVALID_TOPIC_EXCEPTION', false), { retryCount: 3, retryTime: 10 });
    expect(publishFailure(wrapped, ['t'])).toMatchObject({ permanent: true });
  });

  it('marks an error that may pass later as transient, for the relay to retry however long it lasts', () => {
    const unavailable = new KafkaJSNumberOfRetriesExceeded(protocolError('UNKNOWN_TOPIC_OR_PARTITION', true), {
      retryCount: 3,
      retryTime: 10,
    });
    const failure = publishFailure(unavailable, ['t']);
    expect(failure).toBeInstanceOf(TransientPublishError);
    expect(failure).toMatchObject({ transient: true, cause: unavailable });
  });

  it('keeps a lost producer session transient (the bus starts a new session, and the relay retries)', () => {
    const lost = new KafkaJSNumberOfRetriesExceeded(protocolError('OUT_OF_ORDER_SEQUENCE_NUMBER', false), {
      retryCount: 8,
      retryTime: 30_000,
    });
    expect(publishFailure(lost, ['t'])).toBeInstanceOf(TransientPublishError);
  });
});
