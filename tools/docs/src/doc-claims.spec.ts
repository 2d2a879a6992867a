import { resolve } from 'node:path';
import { buildOpenApiDocument } from '@guidepost/contracts-http';
import {
  codeSpans,
  docCitations,
  documents,
  exists,
  headingAnchors,
  markdownNamesCited,
  npmScriptsNamed,
  read,
  relativeLinks,
  repositoryPathsNamed,
  sourceFiles,
} from './doc-claims';

const REPO_ROOT = resolve(__dirname, '..', '..', '..');
const SCRIPTS = Object.keys((JSON.parse(read(REPO_ROOT, 'package.json')) as { scripts: Record<string, string> }).scripts);
const DOCUMENTS = documents(REPO_ROOT);

describe('what the README and docs/*.md claim about the repository', () => {
  it.each(DOCUMENTS)('%s names only npm scripts that package.json has', (document) => {
    const missing = npmScriptsNamed(read(REPO_ROOT, document)).filter((script) => !SCRIPTS.includes(script));
    expect(missing).toEqual([]);
  });

  it.each(DOCUMENTS)('%s names only repository paths that exist', (document) => {
    const missing = repositoryPathsNamed(read(REPO_ROOT, document)).filter((path) => !exists(REPO_ROOT, path));
    expect(missing).toEqual([]);
  });

  it.each(DOCUMENTS)('%s links only to files and headings that exist', (document) => {
    const broken = relativeLinks(document, read(REPO_ROOT, document)).filter(
      ({ path, anchor }) =>
        !exists(REPO_ROOT, path) || (anchor !== undefined && path.endsWith('.md') && !headingAnchors(read(REPO_ROOT, path)).has(anchor)),
    );
    expect(broken).toEqual([]);
  });

  // This tool's own specs name documents outside the repository on purpose, as examples.
  const sources = ['apps', 'libs', 'tools', 'test', 'bench', 'scripts']
    .flatMap((folder) => sourceFiles(REPO_ROOT, folder))
    .filter((source) => !source.startsWith('tools/docs/'));

  it('cites from the code only Markdown files the repository holds (never a document outside it)', () => {
    const inRepository = new Set(sourceFiles(REPO_ROOT, '.', /\.md$/).map((path) => path.split('/').at(-1)));
    const outside = sources.flatMap((source) =>
      markdownNamesCited(read(REPO_ROOT, source))
        .filter((name) => !inRepository.has(name))
        .map((name) => `${source}: ${name}`),
    );
    expect(outside).toEqual([]);
  });

  it('cites from the code only docs sections that exist', () => {
    const broken = sources.flatMap((source) =>
      docCitations(read(REPO_ROOT, source))
        .filter(({ path, anchor }) => !exists(REPO_ROOT, path) || !headingAnchors(read(REPO_ROOT, path)).has(anchor))
        .map(({ path, anchor }) => `${source}: ${path}#${anchor}`),
    );
    expect(broken).toEqual([]);
  });
});

describe('the claim readers', () => {
  const markdown = [
    'Run `npm run build --silent` and `npm run docs`; see `libs/platform/config/src/config.schema.ts:12` and `docs/api-contract.md#exports`.',
    'Patterns name no path: `libs/<service>/src`, `test/{helm,cluster}`, `*.spec.ts`; other spans are not paths: `GUIDEPOST_PORT`, `/v2/accounts`.',
    '```sh',
    'npm run suite -- --help   # a fenced command is still a claim about package.json',
    'cat `tools/not-a-claim`',
    '```',
    'A [link](deployment.md#images) and [an outside one](https://example.com).',
  ].join('\n');

  it('finds the npm scripts, in prose and in fenced commands', () => {
    expect(npmScriptsNamed(markdown)).toEqual(['build', 'docs', 'suite']);
  });

  it('finds backticked repository paths outside fenced blocks, without placeholders, line numbers or anchors', () => {
    expect(codeSpans(markdown)).not.toContain('tools/not-a-claim');
    expect(repositoryPathsNamed(markdown)).toEqual(['libs/platform/config/src/config.schema.ts', 'docs/api-contract.md']);
  });

  it('resolves relative links from the document that holds them', () => {
    expect(relativeLinks('docs/architecture.md', markdown)).toEqual([{ path: 'docs/deployment.md', anchor: 'images' }]);
  });

  it('gives headings the anchors GitHub gives them', () => {
    expect([...headingAnchors('# Choices where the docs are silent\n## `Data`, in and out\n## Data, in and out\n')]).toEqual([
      'choices-where-the-docs-are-silent',
      'data-in-and-out',
      'data-in-and-out-1',
    ]);
  });

  it('finds the Markdown files that source comments name', () => {
    expect(markdownNamesCited('// as decisions.md says; see docs/api-contract.md#exports and README.md')).toEqual([
      'decisions.md',
      'api-contract.md',
      'README.md',
    ]);
  });

  it('finds the docs sections that source comments cite', () => {
    expect(docCitations('/** Timestamp forms (docs/api-contract.md#records-and-timestamp-forms). */')).toEqual([
      { path: 'docs/api-contract.md', anchor: 'records-and-timestamp-forms' },
    ]);
  });
});

describe('docs/api-contract.md', () => {
  it('names every resource of the public API the OpenAPI document lists, so that a new one is written down', () => {
    const contract = read(REPO_ROOT, 'docs/api-contract.md');
    const resources = new Set(
      Object.keys((buildOpenApiDocument() as { paths: Record<string, unknown> }).paths)
        .filter((path) => path.startsWith('/v2/accounts/{account_id}/'))
        .map((path) => path.split('/')[4]),
    );
    // Named as a path (`/flows`, `POST /analytics/query`) or as a kind (`launchpads`).
    const named = (resource: string) => new RegExp(`\`((GET|POST|PATCH|DELETE) )?/${resource}\\b|\`${resource}\``).test(contract);
    const unnamed = [...resources].filter((resource) => !named(resource));
    expect(resources.size).toBeGreaterThan(10);
    expect(unnamed).toEqual([]);
  });
});
