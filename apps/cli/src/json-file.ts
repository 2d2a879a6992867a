import { readFile } from 'node:fs/promises';
import { CliUsageError } from './cli-context';

/** Parses a JSON file; errors name the file and what is wrong with it. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliUsageError(`--file: cannot read '${path}': ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliUsageError(`--file: '${path}' is not valid JSON: ${(error as Error).message}`);
  }
}

/** The records of a file holding a JSON array of objects or a single object. */
export function recordsOf(value: unknown, path: string): object[] {
  const items = Array.isArray(value) ? value : [value];
  items.forEach((item, index) => {
    if (!isPlainObject(item)) {
      const where = Array.isArray(value) ? `item ${index} of '${path}'` : `'${path}'`;
      throw new CliUsageError(`--file: ${where} is not a JSON object`);
    }
  });
  return items as object[];
}

/** The single JSON object a file holds. */
export function objectOf(value: unknown, path: string): object {
  if (!isPlainObject(value)) throw new CliUsageError(`--file: '${path}' must hold one JSON object`);
  return value;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
