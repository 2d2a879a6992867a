import { BadRequestException, NotFoundException, PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import { DomainError, notFound, type ErrorCode } from '@guidepost/platform-errors';
import { problemOf } from './problem';

const limits = { bodyLimitBytes: 20 * 1024 * 1024, fileLimitBytes: 200 * 1024 * 1024 };

/** What Fastify and its plugins throw (`@fastify/error`). */
function fastifyError(code: string, statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { name: 'FastifyError', code, statusCode });
}

describe('problemOf', () => {
  it.each<[ErrorCode, number, string]>([
    ['invalid_request', 400, 'Bad Request'],
    ['unauthenticated', 401, 'Unauthorized'],
    ['forbidden', 403, 'Forbidden'],
    ['not_found', 404, 'Not Found'],
    ['method_not_allowed', 405, 'Method Not Allowed'],
    ['conflict', 409, 'Conflict'],
    ['payload_too_large', 413, 'Payload Too Large'],
    ['unsupported_media_type', 415, 'Unsupported Media Type'],
    ['throttled', 429, 'Too Many Requests'],
    ['unavailable', 503, 'Service Unavailable'],
  ])('maps %s to %i %s with the detail as given', (code, status, title) => {
    expect(problemOf(new DomainError(code, 'name: is required'), limits)).toEqual({
      status,
      body: { error: true, status, title, detail: 'name: is required' },
      headers: {},
    });
  });

  it('words not-found details', () => {
    expect(problemOf(notFound('Segment', 'abc'), limits).body.detail).toBe("Segment 'abc' was not found");
  });

  it('turns retryAfterSeconds into a whole-second Retry-After header', () => {
    const problem = problemOf(new DomainError('throttled', 'slow down', { retryAfterSeconds: 0.2 }), limits);
    expect(problem.headers).toEqual({ 'retry-after': '1' });
  });

  it('names the body limit for a 413 from the HTTP layer', () => {
    expect(problemOf(new PayloadTooLargeException(), limits).body.detail).toBe('request body exceeds the 20 MB limit');
    expect(problemOf(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413, 'Request body is too large'), limits).body.detail).toBe(
      'request body exceeds the 20 MB limit',
    );
  });

  it('sends the methods a path takes as Allow', () => {
    const problem = problemOf(new DomainError('method_not_allowed', 'DELETE is not allowed', { allowedMethods: ['GET', 'HEAD'] }), limits);
    expect(problem).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
  });

  it('answers the router\u2019s refusals without quoting the path', () => {
    const badUrl = problemOf(fastifyError('FST_ERR_BAD_URL', 400, "'/v2/accounts/%E0%A4%A/flows' is not a valid url component"), limits);
    expect(badUrl.body).toMatchObject({ status: 400, detail: expect.stringMatching(/^path: is not a valid URL/) });
    const long = problemOf(
      fastifyError('FST_ERR_MAX_PARAM_LENGTH', 414, `'/v2/accounts/${'x'.repeat(2000)}' is exceeding the max param length`),
      limits,
    );
    expect(long.body).toEqual({
      error: true,
      status: 414,
      title: 'URI Too Long',
      detail: 'path: a path segment (an id) is longer than 1024 characters',
    });
    for (const answer of [badUrl, long]) expect(answer.body.detail).not.toContain('/v2/accounts');
  });

  it('says which media types are accepted for a 415 from the HTTP layer', () => {
    expect(problemOf(new UnsupportedMediaTypeException(), limits).body.detail).toBe(
      'this Content-Type is not supported; send application/json, application/ndjson, application/x-ndjson, text/csv, multipart/mixed or multipart/form-data',
    );
  });

  it('keeps the message of other HTTP exceptions, including Nest\u2019s unknown-route 404', () => {
    expect(problemOf(new NotFoundException('Cannot GET /v2/nowhere'), limits).body).toEqual({
      error: true,
      status: 404,
      title: 'Not Found',
      detail: 'Cannot GET /v2/nowhere',
    });
    expect(problemOf(new BadRequestException(['a: bad', 'b: bad']), limits).body.detail).toBe('a: bad; b: bad');
  });

  it('keeps the status and message of other Fastify client errors', () => {
    const problem = problemOf(fastifyError('FST_PROTO_VIOLATION', 400, 'prototype property is not allowed as field name'), limits);
    expect(problem.body).toMatchObject({ status: 400, detail: 'prototype property is not allowed as field name' });
    expect(problemOf(fastifyError('FST_PARTS_LIMIT', 413, 'reach parts limit'), limits).body).toMatchObject({
      status: 413,
      detail: 'reach parts limit',
    });
  });

  it('answers anything else with a 500 that reveals nothing', () => {
    for (const error of [new Error('password=hunter2'), fastifyError('FST_X', 500, 'internal path /srv'), 'a string']) {
      expect(problemOf(error, limits).body).toEqual({
        error: true,
        status: 500,
        title: 'Internal Server Error',
        detail: 'An unexpected error occurred; it has been logged',
      });
    }
  });

  it('answers 503 with Retry-After when a store or service the request needs is down, revealing nothing of it', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
    const starting = Object.assign(new Error('the database system is starting up'), { code: '57P03' });
    for (const error of [refused, starting, new Error('query failed', { cause: refused })]) {
      const answer = problemOf(error, limits);
      expect(answer.status).toBe(503);
      expect(answer.headers).toEqual({ 'retry-after': '5' });
      expect(JSON.stringify(answer.body)).not.toMatch(/10\.0\.0\.7|5432|starting up/);
    }
  });
});
