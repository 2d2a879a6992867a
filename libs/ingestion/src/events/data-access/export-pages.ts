/** An event's place in export order: its row number in the selection and its sort key. */
export interface RowKey {
  /** 1-based row number among the selected events, in export order. */
  readonly n: number;
  /** `timestamp` as ClickHouse renders it (`2024-05-01 09:30:00.123`), which it reads back exactly. */
  readonly at: string;
  readonly eventId: string;
  readonly userId: string;
}

/** A run of consecutive events in export order, bounded by sort keys so that reading it needs no OFFSET. */
export interface Page {
  readonly from: RowKey;
  /** The first event of the next page (exclusive), or the export's last event (inclusive). */
  readonly to: RowKey;
  readonly toInclusive: boolean;
  readonly rows: number;
}

/**
 * Cuts an export into pages from the keys of its segment starts (the rows at `offset + 1`,
 * `offset + 1 + segmentRows`, ...) and of its last row, as the planning query returns them in order.
 * A page is `segmentsPerPage` segments, the last one whatever remains.
 */
export function exportPages(boundaries: readonly RowKey[], offset: number, segmentRows: number, segmentsPerPage: number): Page[] {
  const last = boundaries.at(-1);
  if (!last) return [];
  const starts = boundaries.filter((key) => (key.n - offset - 1) % segmentRows === 0);
  const pages: Page[] = [];
  for (let index = 0; index < starts.length; index += segmentsPerPage) {
    const from = starts[index];
    const next = starts[index + segmentsPerPage];
    pages.push(
      next
        ? { from, to: next, toInclusive: false, rows: next.n - from.n }
        : { from, to: last, toInclusive: true, rows: last.n - from.n + 1 },
    );
  }
  return pages;
}
