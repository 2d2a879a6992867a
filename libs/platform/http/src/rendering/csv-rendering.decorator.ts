import { SetMetadata } from '@nestjs/common';

export interface CsvRenderingOptions {
  /** Object fields rendered as one `<field>.<key>` column per key (the union of keys, sorted). */
  readonly flatten?: readonly string[];
  /** Fields left out of the CSV rendering (e.g. nested lists that make no sense as a cell). */
  readonly omit?: readonly string[];
}

export const CSV_RENDERING = 'guidepost:csvRendering';

/**
 * How this handler's response renders under `Accept: text/csv`. Handlers without it still render as
 * CSV with every field as a column; this only adjusts that rendering.
 */
export const CsvRendering = (options: CsvRenderingOptions): MethodDecorator => SetMetadata(CSV_RENDERING, options);
