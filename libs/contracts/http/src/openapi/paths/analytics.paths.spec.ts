import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ANALYTICS_QUERY_EXAMPLES, AnalyticsQuerySchema } from '../../schemas/analytics.schema';
import { analyticsPaths } from './analytics.paths';

const ANALYTICS_DOC = join(__dirname, '..', '..', '..', '..', '..', '..', 'docs', 'analytics.md');

/** Every JSON value in the page's code blocks (an `http` block's body after its headers). */
function documentedJson(): unknown[] {
  const blocks = [...readFileSync(ANALYTICS_DOC, 'utf8').matchAll(/```(json|http)\n([\s\S]*?)```/g)];
  return blocks.flatMap(([, language, text]) => {
    const body = language === 'http' ? text.slice(text.indexOf('\n\n') + 2) : text;
    try {
      return [JSON.parse(body) as unknown];
    } catch {
      return [];
    }
  });
}

describe('analytics examples', () => {
  const validate = addFormats(new Ajv({ strict: false })).compile(AnalyticsQuerySchema);

  it.each(Object.entries(ANALYTICS_QUERY_EXAMPLES))(
    '%s is a valid spec, shown on the request body and in docs/analytics.md',
    (name, example) => {
      expect({ valid: validate(example.value), errors: validate.errors }).toEqual({ valid: true, errors: null });
      const body = analyticsPaths()['/v2/accounts/{account_id}/analytics/query']?.post?.['requestBody'] as {
        content: Record<string, { examples: object }>;
      };
      expect(body.content['application/json']?.examples).toHaveProperty(name, example);
      expect(documentedJson()).toContainEqual(example.value);
    },
  );
});
