/**
 * A reason a process cannot start that its operator can act on: what is wrong and how to fix it, each
 * a short phrase. Hosts print it as one line (`<name> cannot start: <problem>. Fix: <fix>.`), never as
 * a stack trace.
 */
export class StartupError extends Error {
  constructor(
    readonly problem: string,
    readonly fix: string,
    options?: { cause?: unknown },
  ) {
    super(`${problem}. Fix: ${fix}.`, options);
    this.name = 'StartupError';
  }
}
