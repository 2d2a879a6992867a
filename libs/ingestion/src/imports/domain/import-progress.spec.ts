import {
  importCompletedEvent,
  importFailedEvent,
  INLINE_FAILURES,
  ImportTally,
  ingestingEvent,
  PROGRESS_INTERVAL_MS,
} from './import-progress';

describe('ImportTally', () => {
  it(`keeps the first ${INLINE_FAILURES} failures and counts them all`, () => {
    const tally = new ImportTally(100);
    const failures = Array.from({ length: 150 }, (_, index) => ({ line: index + 1, field: null, reason: 'bad' }));
    tally.recordFailures(failures.slice(0, 60));
    tally.recordFailures(failures.slice(60));
    expect(tally.failed).toBe(150);
    expect(tally.firstFailures).toEqual(failures.slice(0, INLINE_FAILURES));
  });

  it('reports each step of ten percent once, and not more often than the interval', () => {
    const tally = new ImportTally(1000);
    tally.bytesRead = 50;
    expect(tally.progressStepToReport(0)).toBe(0);
    tally.bytesRead = 120;
    expect(tally.progressStepToReport(1)).toBeUndefined();
    expect(tally.progressStepToReport(PROGRESS_INTERVAL_MS)).toBe(1);
    expect(tally.progressStepToReport(10 * PROGRESS_INTERVAL_MS)).toBeUndefined();
    tally.bytesRead = 1000;
    expect(tally.progressStepToReport(20 * PROGRESS_INTERVAL_MS)).toBe(10);
  });

  it('counts an empty file as read through', () => {
    expect(new ImportTally(0).percent).toBe(100);
  });
});

describe('import job events', () => {
  const stagedAt = new Date('2026-01-01T00:00:00.000Z');
  const now = new Date('2026-01-01T00:00:01.500Z');

  function tally(): ImportTally {
    const counts = new ImportTally(2000);
    Object.assign(counts, { rowsRead: 10, bytesRead: 1000, completed: 6, filtered: 1, requestsFailed: 0 });
    counts.recordFailures([
      { line: 3, field: 'name', reason: 'is required' },
      { line: 9, field: null, reason: 'is not valid JSON' },
      { line: 10, field: null, reason: 'has 2 cells where the header has 3' },
    ]);
    return counts;
  }

  it('reports progress in rows and bytes', () => {
    expect(ingestingEvent(tally(), now)).toEqual({
      name: 'Ingesting',
      timestamp: now.toISOString(),
      attributes: { rows_read: 10, bytes_read: 1000, bytes_total: 2000, percent: 50 },
    });
  });

  it('completes with the counters of every ingestion job, where the failures are, and the first of them', () => {
    expect(importCompletedEvent(tally(), stagedAt, now, 'https://x/failures')).toEqual({
      name: 'Completed',
      timestamp: now.toISOString(),
      attributes: {
        ingestions_completed: 6,
        ingestions_failed: 3,
        ingestions_filtered: 1,
        requests_failed: 0,
        runtime_ms: 1500,
        failures_url: 'https://x/failures',
        failures: tally().firstFailures,
      },
    });
  });

  it('fails with the reason and what was done before', () => {
    expect(
      importFailedEvent('line 1: the header has no name column', tally(), stagedAt, now, 'https://x/failures').attributes,
    ).toMatchObject({
      reason: 'line 1: the header has no name column',
      ingestions_completed: 6,
    });
  });
});
