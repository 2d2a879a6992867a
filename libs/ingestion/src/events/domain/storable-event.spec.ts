import type { RecordedEvent } from '@guidepost/contracts-events';
import { isStorableInstant, unstorableReason } from './storable-event';

const event = (timestamp: string): RecordedEvent => ({
  eventId: 'e1',
  userId: 'u1',
  name: 'n',
  timestamp,
  attributes: {},
  receivedAt: timestamp,
});

describe('storable events', () => {
  it.each(['1900-01-01T00:00:00.000Z', '2024-05-01T09:30:00.000Z', '2299-12-31T23:59:59.999Z'])('holds %s', (timestamp) => {
    expect(isStorableInstant(new Date(timestamp))).toBe(true);
    expect(unstorableReason(event(timestamp))).toBeUndefined();
  });

  it.each([
    '1899-12-31T23:59:59.999Z',
    '2300-01-01T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    '+010000-01-01T00:00:00.000Z',
    'not a time',
  ])('refuses %s, saying why', (timestamp) => {
    expect(unstorableReason(event(timestamp))).toBe(`timestamp ${timestamp} is outside the years 1900 to 2299`);
  });
});
