import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * The process's controlling terminal, for what must be seen but never kept: lines written there reach
 * the person at the terminal and no log, whatever stdout and stderr are redirected to.
 */
const CONTROLLING_TERMINAL = '/dev/tty';

/** Whether the process has a controlling terminal (not under a service manager, nor in a container run without `-t`). */
export function hasTerminal(): boolean {
  try {
    closeSync(openSync(CONTROLLING_TERMINAL, 'w'));
    return true;
  } catch {
    return false;
  }
}

export function writeToTerminal(lines: readonly string[]): void {
  const terminal = openSync(CONTROLLING_TERMINAL, 'w');
  try {
    writeSync(terminal, `${lines.join('\n')}\n`);
  } finally {
    closeSync(terminal);
  }
}
