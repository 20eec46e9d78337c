// Tokenizes the example schemas with VS Code's own TextMate engine and checks the scopes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';

const root = path.resolve(__dirname, '..');
const repo = path.resolve(root, '..', '..');
let registry: vsctm.Registry;

before(async () => {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer);
  registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (s: string[]) => new oniguruma.OnigScanner(s),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName: string) => {
      const lang = scopeName.replace(/^source\./, '');
      const file = path.join(root, 'syntaxes', `${lang}.tmLanguage.json`);
      if (!fs.existsSync(file)) return null;
      return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
  });
});

/** Every token as "text => innermost scopes". */
async function tokens(scope: string, text: string): Promise<{ text: string; scopes: string[] }[]> {
  const grammar = await registry.loadGrammar(scope);
  assert.ok(grammar);
  const out: { text: string; scopes: string[] }[] = [];
  let stack = vsctm.INITIAL;
  for (const line of text.split(/\r?\n/)) {
    const r = grammar.tokenizeLine(line, stack);
    for (const t of r.tokens) out.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    stack = r.ruleStack;
  }
  return out;
}

function scopeOf(toks: { text: string; scopes: string[] }[], text: string, nth = 0): string {
  const found = toks.filter((t) => t.text.trim() === text);
  assert.ok(found[nth], `no token ${JSON.stringify(text)}`);
  return found[nth]!.scopes.join(' ');
}

test('SDP: keywords, struct names, field names, primitives, builtins, types, comments', async () => {
  const src = fs.readFileSync(path.join(repo, 'examples', 'audiounit', 'plugin_registry.sdp'), 'utf8');
  const t = await tokens('source.sdp', src + '\nstruct Z {\n    a: Option<Box<Plugin>>, b: [][]u8, // end\n}\n');
  assert.match(scopeOf(t, 'struct'), /storage\.type\.struct\.sdp/);
  assert.match(scopeOf(t, 'Parameter'), /entity\.name\.type\.struct\.sdp/);
  assert.match(scopeOf(t, 'address'), /variable\.other\.member\.sdp/);
  assert.match(scopeOf(t, 'u64'), /support\.type\.primitive\.sdp/);
  assert.match(scopeOf(t, 'str'), /support\.type\.primitive\.sdp/);
  assert.match(scopeOf(t, 'Option'), /support\.type\.builtin\.sdp/);
  assert.match(scopeOf(t, 'Box'), /support\.type\.builtin\.sdp/);
  assert.match(scopeOf(t, 'ValueStrings'), /entity\.name\.type\.sdp/); // a reference
  assert.match(scopeOf(t, 'b'), /variable\.other\.member\.sdp/); // second field on one line
  assert.match(scopeOf(t, '/// AudioUnitParameterID.'), /comment\.line\.documentation\.sdp/);
  assert.match(scopeOf(t, '// end'), /comment\.line\.double-slash\.sdp/);
  assert.doesNotMatch(scopeOf(t, '// end'), /documentation/);
});

test('ffire: package, type names, fields, primitives, tags, comments, the order directive', async () => {
  const src = fs.readFileSync(path.join(repo, 'examples', 'telemetry', 'telemetry.ffi'), 'utf8');
  const t = await tokens(
    'source.ffi',
    '//wirelens:order declaration\n' + src + '\n/* block\n comment */\ntype (\n\tA struct {\n\t\tX, Y int8\n\t}\n)\n',
  );
  assert.match(scopeOf(t, 'package'), /keyword\.other\.package\.ffi/);
  assert.match(scopeOf(t, 'telemetry'), /entity\.name\.namespace\.ffi/);
  assert.match(scopeOf(t, 'type'), /keyword\.declaration\.type\.ffi/);
  assert.match(scopeOf(t, 'Frame'), /entity\.name\.type\.struct\.ffi/);
  assert.match(scopeOf(t, 'Sequence'), /variable\.other\.member\.ffi/);
  assert.match(scopeOf(t, 'int64'), /support\.type\.primitive\.ffi/);
  assert.match(scopeOf(t, 'string'), /support\.type\.primitive\.ffi/);
  assert.match(scopeOf(t, 'Channel'), /entity\.name\.type\.ffi/);
  assert.match(scopeOf(t, 'json'), /entity\.other\.attribute-name\.tag\.ffi/);
  assert.match(scopeOf(t, '"sequence"'), /string\.quoted\.double\.tag-value\.ffi/);
  assert.match(scopeOf(t, 'wirelens:'), /keyword\.control\.directive\.wirelens\.ffi/);
  assert.match(scopeOf(t, 'declaration'), /constant\.language\.order\.ffi/);
  assert.match(scopeOf(t, '// Channel is one input or output channel.'), /comment\.line/);
  assert.match(scopeOf(t, 'comment'), /comment\.block\.ffi/);
  assert.match(scopeOf(t, 'A'), /entity\.name\.type\.struct\.ffi/);
  assert.match(scopeOf(t, 'Y'), /variable\.other\.member\.ffi/);
  assert.match(scopeOf(t, 'int8'), /support\.type\.primitive\.ffi/);
});
