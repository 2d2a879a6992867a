/** The Problem Details body of every 4xx and 5xx. */
export interface ProblemBody {
  readonly error: true;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
}

/**
 * Asserts that `response` is a Problem Details answer with `status` (JSON content type, `error: true`,
 * the same status in the body, a title and a detail, matching `detailPattern` when given).
 */
export async function expectProblem(response: Response, status: number, detailPattern?: RegExp | string): Promise<ProblemBody> {
  const text = await response.text();
  expect({ status: response.status, body: text.slice(0, 500) }).toEqual({ status, body: expect.any(String) });
  expect(response.headers.get('content-type')).toMatch(/^application\/(problem\+)?json\b/);
  const problem = JSON.parse(text) as ProblemBody;
  expect(problem).toEqual({ error: true, status, title: expect.any(String), detail: expect.any(String) });
  expect(problem.title.length).toBeGreaterThan(0);
  expect(problem.detail.length).toBeGreaterThan(0);
  if (detailPattern !== undefined) expect(problem.detail).toMatch(detailPattern);
  return problem;
}
