import { TransientFailure } from './failure-class';

/**
 * `work`, or a `TransientFailure` once `limitMs` has passed without it settling: for a store that keeps
 * its connections open and answers nothing (frozen, or cut off by a partition), which no client library
 * notices on its own before minutes. The work itself goes on; a caller that gives up on it must be able
 * to let it finish (or fail) unseen, since its late outcome reaches nobody.
 */
export function withDeadline<T>(work: Promise<T>, limitMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TransientFailure(`${what} did not answer within ${limitMs} ms`)), limitMs);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
