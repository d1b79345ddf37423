// Every relative link and anchor of README.md, CHANGELOG.md, CONTRIBUTING.md and docs/*.md resolves (anchors as
// GitHub renders them), and docs/configuration.md names every setting of the schema.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Kind, type TSchema } from '@sinclair/typebox';
import { SettingsSchema } from '../../src/config/schema.ts';
import { anchors, links, read, slug } from './markdown.ts';

const root = resolve(import.meta.dirname, '../..');
const pages = [
  'README.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** Pages another part of the project provides; a link to one is checked once the page exists. */
const providedElsewhere = new Set(['docs/deployment.md']);

/** The broken links of one Markdown text, as `line: target (why)`. */
function brokenLinks(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const { line, target } of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path === '' ? file : resolve(dirname(file), decodeURI(path));
    const shown = `${relative(root, file)}:${line}: ${target}`;
    if (!existsSync(resolved)) {
      if (!providedElsewhere.has(relative(root, resolved))) problems.push(`${shown} (no such file)`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
      problems.push(`${shown} (an anchor into a file that is not Markdown)`);
    } else if (!anchors(resolved === file ? text : read(resolved)).has(decodeURIComponent(anchor))) {
      problems.push(`${shown} (no heading with that anchor)`);
    }
  }
  return problems;
}

describe('documentation links', () => {
  it('makes anchors as GitHub does', () => {
    assert.equal(slug('Scenarios (`machine.yaml`)'), 'scenarios-machineyaml');
    assert.equal(slug("Differences from the spec's service"), 'differences-from-the-specs-service');
    assert.equal(slug('`PlcTargets.<plcId>`'), 'plctargetsplcid');
    assert.equal(slug('1861: timeout'), '1861-timeout');
    assert.equal(slug('Health, metrics and API docs'), 'health-metrics-and-api-docs');
    assert.deepEqual([...anchors('# A\n## B\n```\n# not a heading\n```\n## B\n')], ['a', 'b', 'b-1']);
  });

  it('finds a missing file, a missing anchor and a link left in code alone', () => {
    const file = join(root, 'README.md');
    const text = [
      '# Title',
      '[ok](#title) [ok](docs/api.md#http-basics) [web](https://example.com/x#y)',
      '[gone](docs/nope.md) [bad](#nowhere) [bad too](docs/api.md#nowhere)',
      '`[code](docs/nope.md)`',
      '```',
      '[code](docs/nope.md)',
      '```',
    ].join('\n');
    assert.deepEqual(brokenLinks(file, text), [
      'README.md:3: docs/nope.md (no such file)',
      'README.md:3: #nowhere (no heading with that anchor)',
      'README.md:3: docs/api.md#nowhere (no heading with that anchor)',
    ]);
  });

  for (const page of pages) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const file = join(root, page);
      assert.deepEqual(brokenLinks(file, read(file)), []);
    });
  }

  it('README.md fits on a few screens (at most 300 lines)', () => {
    assert.ok(read(join(root, 'README.md')).split('\n').length <= 300);
  });
});

/**
 * Dotted settings paths of the schema's leaves. Below a record of objects (PlcTargets.<plcId>,
 * PlcAlarms.Targets.<plcId>) the path starts again, as the reference lists those settings per entry.
 */
function settingPaths(schema: TSchema, prefix = ''): string[] {
  const join2 = (key: string): string => (prefix === '' ? key : `${prefix}.${key}`);
  if (schema[Kind] === 'Object') {
    return Object.entries(schema.properties as Record<string, TSchema>).flatMap(([key, child]) =>
      settingPaths(child, join2(key)),
    );
  }
  if (schema[Kind] === 'Record') {
    const entry = Object.values(schema.patternProperties as Record<string, TSchema>)[0];
    if (entry?.[Kind] === 'Object') return settingPaths(entry, '');
  }
  return [prefix];
}

describe('docs/configuration.md', () => {
  it('has a table row for every setting of the schema', () => {
    const text = read(join(root, 'docs/configuration.md'));
    const paths = settingPaths(SettingsSchema);
    assert.ok(paths.includes('EtherCat.PollingIntervalMs') && paths.includes('Cluster.LeaseSeconds'));
    const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const missing = paths.filter((p) => !new RegExp(`^\\| \`([^\`]*\\.)?${escape(p)}\` `, 'm').test(text));
    assert.deepEqual(missing, []);
  });
});
