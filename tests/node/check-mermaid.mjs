// check-mermaid.mjs: parse every ```mermaid block of Markdown files with Mermaid's own
// parser, as GitHub's renderer reads them.
//
//   node check-mermaid.mjs [--min N] FILE.md...
//
// The modules come from the npm cache harness/npm-deps.sh fills, named by
// LOOPBENCH_NPM_DIR (its node_modules/ holds mermaid and jsdom). Mermaid sanitizes
// labels with DOMPurify, which needs a DOM: jsdom gives it one.
//
// Prints one line per block ("FILE: block K (line L): ok, xychart"); a block that does
// not parse fails with its number, line and the parser's message. Exit status: 0 every
// block parsed and there were at least N (default 1) in all; 1 otherwise; 2 bad usage.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const usage = 'usage: node check-mermaid.mjs [--min N] FILE.md...';
const args = process.argv.slice(2);
let min = 1;
if (args[0] === '--min') {
  min = Number(args[1]);
  args.splice(0, 2);
}
if (!Number.isInteger(min) || min < 0 || args.length === 0) {
  console.error(usage);
  process.exit(2);
}
const npmDir = process.env.LOOPBENCH_NPM_DIR;
if (!npmDir) {
  console.error('check-mermaid: LOOPBENCH_NPM_DIR is not set: expected the directory ' +
    'harness/npm-deps.sh installed mermaid and jsdom into');
  process.exit(2);
}
const require = createRequire(join(npmDir, 'package.json'));
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);

const { JSDOM } = await load('jsdom');
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await load('mermaid');
mermaid.initialize({ startOnLoad: false });

// The ```mermaid blocks of a Markdown text: { line, text } each, line counted from 1.
function mermaidBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```mermaid')
      continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```')
      end++;
    if (end === lines.length) {
      blocks.push({ line: start, text: null });
      break;
    }
    blocks.push({ line: start, text: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

let failed = 0, total = 0;
for (const file of args) {
  let blocks;
  try {
    blocks = mermaidBlocks(readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`check-mermaid: cannot read '${file}': ${e.message}`);
    process.exit(2);
  }
  for (const [k, block] of blocks.entries()) {
    const where = `${file}: block ${k + 1} (line ${block.line})`;
    total++;
    if (block.text === null) {
      console.log(`${where}: FAIL: no closing fence`);
      failed++;
      continue;
    }
    try {
      const result = await mermaid.parse(block.text);
      console.log(`${where}: ok, ${result.diagramType}`);
    } catch (e) {
      console.log(`${where}: FAIL: ${String(e.message ?? e).replace(/\n/g, '\n    ')}`);
      failed++;
    }
  }
}
if (total < min) {
  console.log(`FAIL: ${total} mermaid block(s) in ${args.join(', ')}, expected at least ${min}`);
  process.exit(1);
}
console.log(`${total - failed} of ${total} mermaid block(s) parsed`);
process.exit(failed ? 1 : 0);
