/**
 * An error as a ClickHouse server reports it over HTTP: a non-2xx status, the code in
 * `X-ClickHouse-Exception-Code`, and the body `Code: <n>. DB::Exception: <message>. (<TYPE>)`, which
 * `@clickhouse/client` parses into a `ClickHouseError` with `code` and `type`.
 */
export class ClickHouseException extends Error {
  constructor(
    readonly code: number,
    /** The body, in the server's form. */
    readonly text: string,
    readonly httpStatus: number,
  ) {
    super(text);
  }

  /** An error this front finds itself (a bad request), with ClickHouse's code and name for it. */
  static of(code: number, type: string, message: string, httpStatus = 400): ClickHouseException {
    return new ClickHouseException(code, `Code: ${code}. DB::Exception: ${message}. (${type})`, httpStatus);
  }

  /** An error of the engine. chdb's messages already have the server's form; anything else is wrapped in it. */
  static fromEngine(error: unknown): ClickHouseException {
    if (error instanceof ClickHouseException) return error;
    const message = error instanceof Error ? error.message : String(error);
    const code = /^Code: (\d+)\. /.exec(message)?.[1];
    if (code !== undefined) return new ClickHouseException(Number(code), message, 500);
    return ClickHouseException.of(UNKNOWN_EXCEPTION, 'UNKNOWN_EXCEPTION', message, 500);
  }
}

/** ClickHouse's error codes for what this front refuses itself. */
export const SYNTAX_ERROR = 62;
export const BAD_ARGUMENTS = 36;
export const NOT_IMPLEMENTED = 48;
export const TOO_MANY_BYTES = 307;
export const CANNOT_READ_ALL_DATA = 33;
export const AUTHENTICATION_FAILED = 516;
export const QUERY_WAS_CANCELLED = 394;
const UNKNOWN_EXCEPTION = 1002;
