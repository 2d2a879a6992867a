import { type IngestionFilteringRules, NO_FILTERING, type RecordedEvent } from '@guidepost/contracts-events';
import type { TrackEvent } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';
import type { FilteredItems } from '../../filtering/application/filtered-items';
import type { FilteringRules } from '../../filtering/application/filtering-rules.service';
import type { EventIntake } from './event-intake.service';
import { EventTracking } from './event-tracking.service';

function setUp(rules: IngestionFilteringRules = NO_FILTERING) {
  const accepted: { accountId: string; event: RecordedEvent }[] = [];
  const dropped: unknown[][] = [];
  const tracking = new EventTracking(
    { rulesFor: () => Promise.resolve(rules) } as unknown as FilteringRules,
    { record: (...args: unknown[]) => void dropped.push(args) } as unknown as FilteredItems,
    {
      accept: (accountId: string, event: RecordedEvent) => Promise.resolve(void accepted.push({ accountId, event })),
    } as unknown as EventIntake,
  );
  return { tracking, accepted, dropped };
}

describe('EventTracking.track', () => {
  it('records the event as the same instant in UTC, with an id of its own, the group and the page', async () => {
    const { tracking, accepted } = setUp();
    const before = Date.now();
    await tracking.track('acme', 'user-1', {
      name: 'signup',
      timestamp: '2024-05-01T05:30:00.5-04:00',
      // Free-form beyond `_identity`: the schema allows any key, which its static type does not show.
      attributes: { plan: 'pro', _identity: { email: 'a@example.com' } } as TrackEvent['attributes'],
      group_id: 'team-1',
      context: { url: 'https://app.example.com/welcome' },
    });

    expect(accepted).toHaveLength(1);
    const { accountId, event } = accepted[0];
    expect(accountId).toBe('acme');
    expect(event).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userId: 'user-1',
      groupId: 'team-1',
      name: 'signup',
      timestamp: '2024-05-01T09:30:00.500Z',
      attributes: { plan: 'pro', _identity: { email: 'a@example.com' } },
      contextUrl: 'https://app.example.com/welcome',
      receivedAt: expect.any(String),
    });
    expect(Date.parse(event.receivedAt)).toBeGreaterThanOrEqual(before);
  });

  it('gives each event its own id and an empty attribute object when none was sent', async () => {
    const { tracking, accepted } = setUp();
    await tracking.track('acme', 'user-1', { name: 'a', timestamp: '2024-05-01T09:30:00Z' });
    await tracking.track('acme', 'user-1', { name: 'a', timestamp: '2024-05-01T09:30:00Z' });
    expect(accepted[0].event.attributes).toEqual({});
    expect(accepted[0].event).not.toHaveProperty('groupId');
    expect(accepted[0].event).not.toHaveProperty('contextUrl');
    expect(accepted[0].event.eventId).not.toBe(accepted[1].event.eventId);
  });

  it('drops, and counts, an event whose name the rules deny', async () => {
    const { tracking, accepted, dropped } = setUp({ ...NO_FILTERING, mode: 'deny', eventNames: ['spam'] });
    await tracking.track('acme', 'user-1', { name: 'spam', timestamp: '2024-05-01T09:30:00Z' });
    await tracking.track('acme', 'user-1', { name: 'signup', timestamp: '2024-05-01T09:30:00Z' });
    expect(dropped).toEqual([['track', 'event', 'acme', ['spam']]]);
    expect(accepted.map(({ event }) => event.name)).toEqual(['signup']);
  });

  it('keeps only listed names in allow mode', async () => {
    const { tracking, accepted, dropped } = setUp({ ...NO_FILTERING, mode: 'allow', eventNames: ['signup'] });
    await tracking.track('acme', 'user-1', { name: 'page_view', timestamp: '2024-05-01T09:30:00Z' });
    await tracking.track('acme', 'user-1', { name: 'signup', timestamp: '2024-05-01T09:30:00Z' });
    expect(dropped).toEqual([['track', 'event', 'acme', ['page_view']]]);
    expect(accepted.map(({ event }) => event.name)).toEqual(['signup']);
  });

  it('refuses, naming timestamp, a well-formed date-time that is no recordable instant', async () => {
    const { tracking, accepted } = setUp();
    const leapSecond = tracking.track('acme', 'user-1', { name: 'a', timestamp: '2016-12-31T23:59:60Z' });
    await expect(leapSecond).rejects.toBeInstanceOf(DomainError);
    await expect(leapSecond).rejects.toThrow(/^timestamp: /);
    expect(accepted).toHaveLength(0);
  });
});
