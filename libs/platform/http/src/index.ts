export { DEPENDENCY_RETRY_AFTER_SECONDS, problemOf, type ProblemResponse, type SizeLimits } from './errors/problem';
export { type Checked, compileCheck, compileValidator } from './validation/compile-validator';
export { checkedIdentifier, IdentifierParam } from './validation/identifier';
export { InboundBody, type BodyFormat, type RecordFormat } from './body/inbound-body';
export { AcceptsBody } from './body/accepts-body.decorator';
export { type BodyReader, ValidBody } from './body/valid-body.decorator';
export { settleUnreadBody } from './body/unread-body';
export { ndjsonValueBatches, ndjsonValues, type NdjsonValue } from './body/ndjson-values';
export { csvRowBatches, csvRows, type CsvRow } from './body/csv-rows';
export { isRecordFailure, MAX_RECORD_CHARS, type RecordFailure, type TolerantReading } from './body/text-lines';
export { Utf8Chunks } from './body/utf8-chunks';
export { prefersCsv } from './rendering/accept';
export {
  CSV_TEXT_COLUMNS,
  csvCellTyper,
  csvColumnsOf,
  csvRecordTyper,
  setOwnField,
  typedCsvCell,
  typedCsvRecord,
} from './body/csv-cell-types';
export { userIdsOf } from './body/user-ids-of';
export { configureHttpServer, fastifyAdapterOptions, type HttpServerOptions, REQUEST_ID_HEADER } from './http-server';
export { NO_STORE, SAFE_ANSWER_HEADERS } from './safe-answer-headers';
export { canonicalPathOf, readPath, type PathReading } from './routing/canonical-path';
export { type DirectRoute, type DirectRoutePath, directRoutesOf, serveDirectRoute, ServesDirectly } from './routing/direct-route';
export { CsvRendering, type CsvRenderingOptions } from './rendering/csv-rendering.decorator';
export { renderCsv } from './rendering/render-csv';
export { csvCell, csvRecord, FORMULA_START, NUMBER_TEXT } from './rendering/csv-cell';
export { AccountStatements } from './auth/account-statement';
export { InternalCallerHooks } from './auth/internal-caller.hooks';
export { PublicBaseUrl, recordPublicBaseUrls, requestBaseUrl } from './links/public-base-url.hooks';
export { PlatformHttpModule } from './platform-http.module';
