import { DomainError } from '@guidepost/platform-errors';
import { analyticsSpecOf } from './analytics-spec';

const WINDOW = { start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-02T00:00:00Z' };

function detailOf(body: unknown): string {
  try {
    analyticsSpecOf(body);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_request') return error.detail;
    throw error;
  }
  throw new Error('the body was accepted');
}

describe('analyticsSpecOf', () => {
  it('resolves an aggregate spec: metrics, dimensions by kind, the window as instants', () => {
    const spec = analyticsSpecOf({
      ...WINDOW,
      metrics: ['events', 'users'],
      dimensions: ['flow_id', 'name', 'day', 'attributes.plan'],
      conditions: [['name', '==', 'x']],
    });
    expect(spec).toEqual({
      shape: 'aggregate',
      metrics: ['events', 'users'],
      dimensions: [
        { name: 'flow_id', source: { kind: 'attribute', key: 'flow_id' } },
        { name: 'name', source: { kind: 'field', field: 'name' } },
        { name: 'day', source: { kind: 'bucket', bucket: 'day' } },
        { name: 'attributes.plan', source: { kind: 'attribute', key: 'plan' } },
      ],
      conditions: [['name', '==', 'x']],
      startTime: new Date('2025-10-01T00:00:00Z'),
      endTime: new Date('2025-10-02T00:00:00Z'),
      limit: undefined,
    });
  });

  it('resolves a raw spec with columns', () => {
    const spec = analyticsSpecOf({ ...WINDOW, columns: ['timestamp', 'attributes', 'attributes.a.b'], limit: 5 });
    expect(spec).toMatchObject({
      shape: 'raw',
      limit: 5,
      columns: [{ name: 'timestamp' }, { name: 'attributes' }, { name: 'attributes.a.b', source: { kind: 'attribute', key: 'a.b' } }],
    });
  });

  it.each([
    [{ metrics: ['events', 'clicks'] }, /^metrics\[1\]: unknown metric "clicks"; use one of "events", "users", "groups"$/],
    [{ metrics: ['events', 'events'] }, /^metrics\[1\]: "events" is already asked for$/],
    [{ metrics: [] }, /^metrics: must name at least one metric/],
    [{ metrics: ['events'], dimensions: ['name', 'colour'] }, /^dimensions\[1\]: unknown dimension "colour"/],
    [{ metrics: ['events'], dimensions: ['timestamp'] }, /^dimensions\[0\]: unknown dimension "timestamp"/],
    [{ metrics: ['events'], dimensions: ['attributes.'] }, /^dimensions\[0\]: unknown dimension/],
    [{ metrics: ['events'], dimensions: ['day', 'day'] }, /^dimensions\[1\]: "day" is already asked for$/],
    [{ metrics: ['events'], dimensions: Array.from({ length: 17 }, (_, i) => `attributes.k${i}`) }, /^dimensions: must name at most 16$/],
    [{ columns: ['name', 'day'] }, /^columns\[1\]: unknown column "day"/],
    [{ columns: [] }, /^columns: must name at least one column$/],
    [{ columns: ['name'], dimensions: ['name'] }, /^dimensions: /],
    [{ metrics: ['events'], columns: ['name'] }, /^columns: give either metrics/],
    [{}, /^metrics: is required unless columns is given/],
    [{ metrics: [1] }, /^metrics\.0: must be string$/],
    [{ metrics: ['events'], end_time: '2025-10-01T00:00:00Z' }, /^end_time: must be after start_time/],
    [{ metrics: ['events'], start_time: 'yesterday' }, /^start_time: must be an ISO 8601 date-time/],
    [{ metrics: ['events'], end_time: 1_700_000_000_000 }, /end_time/],
    [{ metrics: ['events'], limit: 0 }, /^limit/],
  ])('refuses %j naming the field', (body, detail) => {
    expect(detailOf({ ...WINDOW, ...body })).toMatch(detail);
  });

  it('names a missing start_time or end_time', () => {
    expect(detailOf({ metrics: ['events'], end_time: WINDOW.end_time })).toMatch(/^start_time: is required/);
    expect(detailOf({ metrics: ['events'], start_time: WINDOW.start_time })).toMatch(/^end_time: is required/);
  });
});
