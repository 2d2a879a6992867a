import { JobEventName } from '@guidepost/contracts-events';
import { INITIAL_JOB_STATUS, jobStatusAfter } from './job-status';

const statusOf = (events: JobEventName[]) => events.reduce(jobStatusAfter, INITIAL_JOB_STATUS);

describe('job status, the fold of job events', () => {
  it('is IN_PROGRESS for a job without events', () => {
    expect(statusOf([])).toBe('IN_PROGRESS');
  });

  it('stays IN_PROGRESS while the job only reports progress', () => {
    expect(statusOf(['Ingesting', 'Ingesting'])).toBe('IN_PROGRESS');
  });

  it('becomes COMPLETED on Completed', () => {
    expect(statusOf(['Ingesting', 'Completed'])).toBe('COMPLETED');
  });

  it('becomes FAILED on Failed', () => {
    expect(statusOf(['Ingesting', 'Failed'])).toBe('FAILED');
  });

  it('never leaves COMPLETED, whatever arrives after it', () => {
    expect(statusOf(['Completed', 'Failed'])).toBe('COMPLETED');
    expect(statusOf(['Completed', 'Ingesting', 'Completed'])).toBe('COMPLETED');
  });

  it('never leaves FAILED, whatever arrives after it', () => {
    expect(statusOf(['Failed', 'Completed'])).toBe('FAILED');
    expect(statusOf(['Failed', 'Ingesting'])).toBe('FAILED');
  });
});
