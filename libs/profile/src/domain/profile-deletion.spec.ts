import { profileDeletedEvent } from './profile-deletion';

describe('profileDeletedEvent', () => {
  it('completes the job saying whether a profile was deleted, with the runtime', () => {
    const event = profileDeletedEvent(true, new Date('2024-05-01T09:30:00.000Z'), new Date('2024-05-01T09:30:00.250Z'));
    expect(event).toEqual({ name: 'Completed', timestamp: '2024-05-01T09:30:00.250Z', attributes: { deleted: true, runtime_ms: 250 } });
    expect(profileDeletedEvent(false, new Date(0), new Date(0)).attributes).toEqual({ deleted: false, runtime_ms: 0 });
  });

  it('never reports a negative runtime when clocks disagree', () => {
    expect(profileDeletedEvent(false, new Date(1_000), new Date(0)).attributes['runtime_ms']).toBe(0);
  });
});
