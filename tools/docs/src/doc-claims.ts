import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** The top-level folders of the repository: a backticked path starting with one of them is a claim that it exists. */
const REPOSITORY_ROOTS = ['apps', 'libs', 'tools', 'docs', 'scripts', 'helm', 'deploy', 'test', 'bench'];
/** Placeholders and patterns (`libs/<service>/...`, `test/{helm,cluster}`, `*.spec.ts`) name no one path. */
const PLACEHOLDER = /[<>{}*]|\.\.\./;

/** The documents whose claims are checked, relative to the repository root. */
export function documents(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
}

/** Every backticked span of a Markdown text, fenced code blocks left out (they hold examples, not claims). */
export function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);
}

/** The npm scripts a text tells the reader to run (`npm run X`), in backticks or fenced commands alike. */
export function npmScriptsNamed(markdown: string): string[] {
  return [...markdown.matchAll(/\bnpm run (?:--silent )?([a-z][\w:-]*)/g)].map((match) => match[1]);
}

/**
 * The repository paths a text names in backticks: spans that start with a top-level folder of the
 * repository, without placeholders, cut at a line number or an anchor.
 */
export function repositoryPathsNamed(markdown: string): string[] {
  return codeSpans(markdown)
    .map((span) =>
      span
        .trim()
        .split(/\s/)[0]
        .replace(/[#:].*$/, '')
        .replace(/[,.;]$/, ''),
    )
    .filter((span) => REPOSITORY_ROOTS.some((top) => span.startsWith(`${top}/`)) && !PLACEHOLDER.test(span));
}

/** The relative Markdown links of a document (`[text](deployment.md#images)`), resolved from its folder. */
export function relativeLinks(document: string, markdown: string): { path: string; anchor: string | undefined }[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
    .map((target) => {
      const [path, anchor] = target.split('#');
      return { path: normalize(join(dirname(document), path)), anchor };
    });
}

/** `docs/<page>.md#<anchor>` citations in source comments: where code sends its reader in the docs. */
export function docCitations(source: string): { path: string; anchor: string }[] {
  return [...source.matchAll(/\b(docs\/[\w.-]+\.md)#([\w-]+)/g)].map((match) => ({ path: match[1], anchor: match[2] }));
}

/** The anchors GitHub gives a Markdown document's headings (lower case, punctuation dropped, spaces to dashes). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = match[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = base;
    for (let repeat = 1; anchors.has(anchor); repeat += 1) anchor = `${base}-${repeat}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The names of Markdown files a source text mentions (`api-contract.md`, `README.md`). */
export function markdownNamesCited(source: string): string[] {
  return [...source.matchAll(/\b([\w.-]+\.md)\b/g)].map((match) => match[1].split('/').at(-1)!);
}

/** Whether `path` (relative to `root`) exists, as a file or a folder. */
export function exists(root: string, path: string): boolean {
  return existsSync(join(root, path));
}

const SOURCE_FILE = /\.(ts|sh|mjs|js)$/;
const NOT_SOURCE_FOLDERS = new Set(['node_modules', 'dist', '.git', '.nx']);

/** Source files under `folder` whose comments may cite the docs (TypeScript, JavaScript and shell). */
export function sourceFiles(root: string, folder: string, name = SOURCE_FILE): string[] {
  const full = join(root, folder);
  if (!existsSync(full)) return [];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '.' ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) return NOT_SOURCE_FOLDERS.has(entry.name) ? [] : sourceFiles(root, path, name);
    return name.test(entry.name) ? [path] : [];
  });
}

export function read(root: string, path: string): string {
  return readFileSync(join(root, path), 'utf8');
}
