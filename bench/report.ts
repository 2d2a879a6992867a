import { percent } from './units';

/** Whether a figure meets the target docs/performance.md holds it to. */
export interface TargetCheck {
  /** The target as written in the table (`>= 35 %`, `< 300 MiB`). */
  readonly target: string;
  readonly met: boolean;
}

/** One line of the result table. */
export interface Figure {
  readonly stage: string;
  readonly figure: string;
  readonly measured: string;
  /** The baseline measured in the same run, named (`bare node:http: 12,345 req/s`). */
  readonly baseline?: string;
  /** measured / baseline, when the target is a ratio. */
  readonly ratio?: number;
  readonly target?: TargetCheck;
  /** The stage could not measure this figure (a feature missing or failing); says why. */
  readonly failure?: string;
}

export function ratioAtLeast(ratio: number, minimum: number): TargetCheck {
  return { target: `>= ${percent(minimum)}`, met: ratio >= minimum };
}

export function atMost(value: number, limit: number, describe: (value: number) => string): TargetCheck {
  return { target: `< ${describe(limit)}`, met: value < limit };
}

/** The figure that says a stage (or part of it) could not be measured, and why. */
export function failedFigure(stage: string, figure: string, error: unknown): Figure {
  const message = error instanceof Error ? error.message : String(error);
  return { stage, figure, measured: '-', failure: firstLine(message) };
}

const COLUMNS = ['stage', 'figure', 'measured', 'baseline (same run)', 'ratio', 'target', 'verdict'] as const;

/** The figures as a Markdown table (pasted as is into a dated file of bench/results). */
export function renderTable(figures: readonly Figure[]): string {
  const rows = figures.map((figure) => [
    figure.stage,
    figure.figure,
    figure.measured,
    figure.baseline ?? '',
    figure.ratio === undefined ? '' : percent(figure.ratio),
    figure.target?.target ?? '',
    verdictOf(figure),
  ]);
  const widths = COLUMNS.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(COLUMNS), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function verdictOf(figure: Figure): string {
  if (figure.failure !== undefined) return `NOT MEASURED: ${figure.failure}`;
  if (figure.target === undefined) return '';
  return figure.target.met ? 'meets' : 'MISSES';
}

const FAILURE_CHARS = 160;

/** The first line of an error message, cut to fit a table cell (the whole error goes to stderr). */
function firstLine(message: string): string {
  const line = message.split('\n')[0];
  return line.length > FAILURE_CHARS ? `${line.slice(0, FAILURE_CHARS - 3)}...` : line;
}
