// The wirelens VS Code extension: starts `wirelens lsp`, adds the layout, decode,
// inspect, generate and restart commands and a status-bar item.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions as LspServerOptions,
  State,
} from 'vscode-languageclient/node';
import {
  buildDecodeArgs,
  dialectOf,
  hasOrderDirective,
  type LayoutType,
  layoutTypes,
  looksLikeHex,
  messageTypeId,
  parseHex,
  rootCandidates,
  rootForTypeId,
  shortError,
} from './decode';
import { enclosingType, escapeHtml, layoutAnswer, layoutPage } from './layout';
import { inspectCommand, type InspectorDeps } from './inspector';
import { ensureBundledExecutable, resolveServer, type ResolvedServer, ServerNotFoundError } from './server';
import { describeGeneration, progressOutcome, shortRequestError } from './generation';
import {
  explicitOnly,
  GENERATE_COMMAND,
  generateArguments,
  readSettings,
  readUserSettings,
  serverOffers,
  type Settings,
  toServerOptions,
} from './settings';

const LANGUAGES = ['sdp', 'ffi'];
/** A server command (see showLayout), contributed to the palette by package.json. */
const SHOW_LAYOUT = 'wirelens.showLayout';

let client: LanguageClient | undefined;
let server: ResolvedServer | undefined;
let status: vscode.StatusBarItem;
let output: vscode.LogOutputChannel;
let extensionPath = '';

function settings(): Settings {
  const cfg = vscode.workspace.getConfiguration('wirelens');
  return readSettings((key) => cfg.get(key));
}

/** Only the settings the user set: what the server gets. */
function userSettings(): Partial<Settings> {
  const cfg = vscode.workspace.getConfiguration('wirelens');
  return readUserSettings(explicitOnly((key) => cfg.inspect(key)));
}

type ServerState = 'starting' | 'running' | 'stopped' | 'error';

function setStatus(state: ServerState, detail?: string): void {
  const icon = { starting: '$(sync~spin)', running: '$(pass)', stopped: '$(circle-slash)', error: '$(error)' }[state];
  status.text = `${icon} wirelens`;
  const where = server ? `\n${server.command} (${server.source})` : '';
  status.tooltip = `wirelens language server: ${state}${detail ? `\n${detail}` : where}\nClick to restart.`;
  status.backgroundColor = state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  status.show();
}

/** A server that is missing or cannot run here: one toast with a button opening `wirelens.server.path`. */
function showServerError(message: string): void {
  void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'wirelens.server.path');
  });
}

async function startClient(): Promise<void> {
  setStatus('starting');
  const configured = vscode.workspace.getConfiguration('wirelens').get<string>('server.path') ?? '';
  ensureBundledExecutable(extensionPath);
  try {
    server = resolveServer({ configuredPath: configured, extensionPath });
  } catch (e) {
    server = undefined;
    const message = e instanceof ServerNotFoundError ? e.message : String(e);
    setStatus('error', message);
    output.appendLine(message);
    showServerError(message);
    return;
  }
  output.appendLine(`wirelens: starting ${server.command} lsp (${server.source})`);
  const serverOptions: LspServerOptions = { command: server.command, args: ['lsp'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: 'file', language },
      { scheme: 'untitled', language },
    ]),
    // Only what the user set (see `userSettings`); changes follow in `activate`. The
    // client's own configuration sync is not used: it sends every default too.
    initializationOptions: toServerOptions(userSettings()),
    outputChannel: output,
    middleware: {
      provideInlayHints: (document, range, token, next) =>
        settings().inlayHintsEnabled ? next(document, range, token) : [],
      executeCommand: (command, args, next) => {
        if (command === SHOW_LAYOUT) return showLayout(args, (a) => Promise.resolve(next(command, a)));
        // The Generate lenses and actions: one short toast on failure, not the client's
        // "Request workspace/executeCommand failed" with the raw error code.
        if (command === GENERATE_COMMAND) return runGenerate(args);
        return next(command, args);
      },
      // Generation on save reports only through `$/progress` (a token the server
      // creates): its end message says "N file(s) written" or "failed: …".
      handleWorkDoneProgress: (token, params, next) => {
        next(token, params);
        if (params.kind === 'end' && typeof token === 'string' && token.startsWith('wirelens-generate')) {
          reportGeneration(params.message ?? '');
        }
      },
    },
  };
  const c = new LanguageClient('wirelens', 'wirelens', serverOptions, clientOptions);
  client = c;
  c.onDidChangeState((e) => {
    if (client !== c) return;
    if (e.newState === State.Running) setStatus('running');
    else if (e.newState === State.Starting) setStatus('starting');
    else setStatus('stopped');
  });
  try {
    await c.start();
    setStatus('running');
  } catch (e) {
    const message = `wirelens: the language server failed to start: ${e instanceof Error ? e.message : String(e)}`;
    setStatus('error', message);
    output.appendLine(message);
    // A binary that cannot run here (spawn ENOEXEC/EACCES, a crash at start): the setting is the fix.
    showServerError(message);
  }
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop();
    } catch (e) {
      output.appendLine(`wirelens: stopping the server: ${String(e)}`);
    }
  }
}

async function restart(): Promise<void> {
  await stopClient();
  await startClient();
}

function schemaEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !LANGUAGES.includes(editor.document.languageId)) {
    void vscode.window.showWarningMessage('wirelens: open an .sdp or .ffi schema first.');
    return undefined;
  }
  return editor;
}

async function topLevelSymbols(uri: vscode.Uri): Promise<vscode.DocumentSymbol[]> {
  const result = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
    'vscode.executeDocumentSymbolProvider',
    uri,
  );
  return (result ?? []).filter((s): s is vscode.DocumentSymbol => 'selectionRange' in s);
}

async function renderMarkdown(md: string): Promise<string> {
  try {
    const html = await vscode.commands.executeCommand<string>('markdown.api.render', md);
    if (typeof html === 'string') return html;
  } catch {
    // the built-in markdown extension is disabled: fall back to the text
  }
  return `<pre>${escapeHtml(md)}</pre>`;
}

let layoutPanel: vscode.WebviewPanel | undefined;
/** What the layout view shows, so it can follow edits: the document and the type. */
let layoutTarget: { uri: string; name: string } | undefined;
let layoutRefresh: ReturnType<typeof setTimeout> | undefined;

function renderLayout(name: string, answer: unknown): Promise<void> {
  const panel = layoutPanel;
  if (!panel) return Promise.resolve();
  const title = `Wire layout: ${name}`;
  panel.title = title;
  const { markdown, svg } = layoutAnswer(answer);
  const text =
    markdown && markdown.trim()
      ? markdown
      : `No wire layout for \`${name}\` right now: it has errors (see the Problems panel) or was renamed.`;
  return renderMarkdown(text).then((html) => {
    // The server's SVG (its texts escaped there) above the Markdown's table.
    const body = svg ? `<div class="diagram">${svg}</div>${html}` : html;
    if (layoutPanel === panel) panel.webview.html = layoutPage(title, body, panel.webview.cspSource);
  });
}

/** Re-asks the server for the shown layout (after an edit of its document). */
async function refreshLayout(): Promise<void> {
  const target = layoutTarget;
  const c = client;
  if (!target || !layoutPanel || !c?.isRunning()) return;
  try {
    const answer = await c.sendRequest(ExecuteCommandRequest.type, {
      command: SHOW_LAYOUT,
      arguments: [target.uri, target.name, { svg: true }],
    });
    if (layoutTarget === target) await renderLayout(target.name, answer);
  } catch (e) {
    output.appendLine(`wirelens: refreshing the layout view: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function scheduleLayoutRefresh(doc: vscode.TextDocument): void {
  if (!layoutPanel || doc.uri.toString() !== layoutTarget?.uri) return;
  if (layoutRefresh) clearTimeout(layoutRefresh);
  layoutRefresh = setTimeout(() => {
    layoutRefresh = undefined;
    void refreshLayout();
  }, 300);
}

/**
 * `wirelens.showLayout` belongs to the server (its `executeCommandProvider`; the code lenses
 * run it with `[uri, typeName]`), so vscode-languageclient registers the command and this
 * middleware renders the Markdown the server returns. From the command palette there are no
 * arguments: the struct under the cursor, else a pick of the file's types. The view follows
 * edits of its document (see scheduleLayoutRefresh).
 */
async function showLayout(args: unknown[], ask: (args: unknown[]) => Promise<unknown>): Promise<unknown> {
  let uri: vscode.Uri;
  let name: string | undefined;
  if (typeof args[0] === 'string' && typeof args[1] === 'string') {
    uri = vscode.Uri.parse(args[0]);
    name = args[1];
  } else {
    const editor = schemaEditor();
    if (!editor) return undefined;
    uri = editor.document.uri;
    const symbols = await topLevelSymbols(uri);
    name = enclosingType(symbols, editor.selection.active)?.name;
    if (!name) {
      if (symbols.length === 0) {
        void vscode.window.showInformationMessage('wirelens: this file declares no types.');
        return undefined;
      }
      name = await vscode.window.showQuickPick(
        symbols.map((s) => s.name),
        { title: 'Wire layout of', placeHolder: 'type' },
      );
      if (!name) return undefined;
    }
  }
  const answer = await ask([uri.toString(), name, { svg: true }]);
  const md = layoutAnswer(answer).markdown;
  if (typeof md !== 'string' || !md.trim()) {
    void vscode.window.showInformationMessage(`wirelens: no wire layout for ${name} (see the Problems panel).`);
    return md;
  }
  if (!layoutPanel) {
    layoutPanel = vscode.window.createWebviewPanel('wirelens.layout', `Wire layout: ${name}`, vscode.ViewColumn.Beside, {
      enableScripts: false,
      enableFindWidget: true,
    });
    layoutPanel.onDidDispose(() => {
      layoutPanel = undefined;
      layoutTarget = undefined;
    });
  }
  layoutTarget = { uri: uri.toString(), name };
  await renderLayout(name, answer);
  layoutPanel.reveal(vscode.ViewColumn.Beside, true);
  return md;
}

function run(command: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(command, args, { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ stdout, stderr: stderr || (err && code === -1 ? err.message : ''), code });
    });
  });
}

/** Decoded dumps, served read-only under the `wirelens-decode:` scheme. */
const DECODE_SCHEME = 'wirelens-decode';
const decoded = new Map<string, string>();
const decodedChanged = new vscode.EventEmitter<vscode.Uri>();
let decodeCount = 0;

async function showDecoded(root: string, text: string): Promise<void> {
  decodeCount++;
  const uri = vscode.Uri.from({ scheme: DECODE_SCHEME, path: `/${root} (${decodeCount}).decoded` });
  decoded.set(uri.toString(), text);
  // Only the last few dumps are kept.
  for (const key of [...decoded.keys()].slice(0, -10)) decoded.delete(key);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

/** Runs the CLI with `stdin` as its input. */
function runWithInput(command: string, args: string[], stdin?: Uint8Array): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ stdout, stderr: stderr || (err && code === -1 ? err.message : ''), code });
    });
    child.stdin?.on('error', () => undefined); // a CLI that exits early closes the pipe
    child.stdin?.end(stdin ? Buffer.from(stdin) : undefined);
  });
}

/** The schema to decode with: the active editor's, else one picked from the workspace. */
async function decodeSchema(): Promise<vscode.TextDocument | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  if (active && LANGUAGES.includes(active.languageId)) return active;
  const open = vscode.workspace.textDocuments.filter((d) => LANGUAGES.includes(d.languageId) && d.uri.scheme === 'file');
  const found = await vscode.workspace.findFiles('**/*.{sdp,ffi}', '**/node_modules/**', 200);
  const uris = new Map<string, vscode.Uri>();
  for (const u of [...open.map((d) => d.uri), ...found]) uris.set(u.toString(), u);
  if (uris.size === 0) {
    void vscode.window.showWarningMessage('wirelens: no .sdp or .ffi schema to decode with.');
    return undefined;
  }
  const items = [...uris.values()].map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri }));
  const picked = items.length === 1 ? items[0] : await vscode.window.showQuickPick(items, { title: 'Schema of the bytes' });
  return picked ? vscode.workspace.openTextDocument(picked.uri) : undefined;
}

/** The bytes: the hex selected in the active (non-schema) editor, else hex pasted (the clipboard is offered) or a file. */
async function decodeInput(
  schemaDir: vscode.Uri,
): Promise<{ bytes?: Uint8Array; file?: string; source: string } | undefined> {
  // A selection in a schema is a name (`face` is hex too), not bytes.
  const editor = vscode.window.activeTextEditor;
  const other = editor && !LANGUAGES.includes(editor.document.languageId);
  const selected = other && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
  if (selected && looksLikeHex(selected)) return { bytes: parseHex(selected), source: 'the selected hex' };
  // Only a suggestion, and not in a browser (code-server, vscode.dev): there the workbench
  // answers a refused clipboard read with an error toast of its own.
  const clip =
    vscode.env.uiKind === vscode.UIKind.Web
      ? ''
      : (
          await Promise.race([
            Promise.resolve(vscode.env.clipboard.readText()).catch(() => ''),
            new Promise<string>((resolve) => setTimeout(() => resolve(''), 1_000)),
          ])
        ).trim();
  const how = await vscode.window.showQuickPick(
    [
      { label: 'Hex…', description: looksLikeHex(clip) ? 'paste or type; the clipboard is filled in' : 'paste or type', pick: 'hex' as const },
      { label: 'Binary file…', description: 'pick a file', pick: 'file' as const },
    ],
    { title: 'Bytes to decode' },
  );
  if (!how) return undefined;
  if (how.pick === 'hex') {
    const text = await vscode.window.showInputBox({
      title: 'Hex to decode',
      prompt: 'bytes in hex: spaces, commas, colons and 0x prefixes are fine',
      value: looksLikeHex(clip) ? clip : '',
      validateInput: (t) => {
        try {
          parseHex(t);
          return undefined;
        } catch (e) {
          return e instanceof Error ? e.message : String(e);
        }
      },
    });
    return text ? { bytes: parseHex(text), source: 'hex' } : undefined;
  }
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    canSelectFolders: false,
    openLabel: 'Decode',
    title: 'Binary file to decode',
    defaultUri: schemaDir,
  });
  const file = picked?.[0];
  return file ? { file: file.fsPath, source: path.basename(file.fsPath) } : undefined;
}

async function decode(): Promise<void> {
  const doc = await decodeSchema();
  if (!doc) return;
  if (doc.uri.scheme !== 'file') {
    void vscode.window.showWarningMessage('wirelens: save the schema to a file before decoding.');
    return;
  }
  let input: Awaited<ReturnType<typeof decodeInput>>;
  try {
    input = await decodeInput(vscode.Uri.joinPath(doc.uri, '..'));
  } catch (e) {
    void vscode.window.showErrorMessage(`wirelens decode: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  if (!input) return;
  if (doc.isDirty && !(await doc.save())) return;
  let bin: ResolvedServer;
  try {
    bin = server ?? resolveServer({ configuredPath: vscode.workspace.getConfiguration('wirelens').get('server.path'), extensionPath });
  } catch (e) {
    showServerError(e instanceof Error ? e.message : String(e));
    return;
  }
  const dialect = dialectOf(doc.uri.fsPath) ?? (doc.languageId === 'sdp' ? 'sdp' : 'ffi');
  const schemaName = path.basename(doc.uri.fsPath);
  const listed = await run(bin.command, ['layout', '--format', 'json', doc.uri.fsPath]);
  let types: LayoutType[];
  try {
    if (listed.code !== 0) throw new Error(shortError(listed.stderr, listed.code));
    types = layoutTypes(listed.stdout);
  } catch (e) {
    void vscode.window.showErrorMessage(`wirelens decode: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  // SDP bytes with a message header: message mode, the root is the struct of its type id.
  let mode: 'byte' | 'message' | undefined;
  let root: string | undefined;
  let note = '';
  const header = input.bytes ? messageTypeId(input.bytes) : await fileTypeId(input.file);
  if (dialect === 'sdp') {
    mode = header === undefined ? 'byte' : 'message';
    if (header !== undefined) {
      try {
        root = rootForTypeId(types, header, schemaName);
      } catch (e) {
        void vscode.window.showErrorMessage(`wirelens decode: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
      note = `, message type id ${header}`;
    }
  }
  if (!root) {
    const editor = vscode.window.activeTextEditor;
    const current =
      editor?.document === doc ? enclosingType(await topLevelSymbols(doc.uri).catch(() => []), editor.selection.active)?.name : undefined;
    const names = rootCandidates(types);
    const items = current ? [current, ...names.filter((n) => n !== current)] : names;
    root = await vscode.window.showQuickPick(items, { title: 'Root type of the value', placeHolder: 'type' });
    if (!root) return;
  }
  const s = settings();
  const order = dialect === 'ffi' && s.ffiOrder !== 'default' && !hasOrderDirective(doc.getText()) ? s.ffiOrder : undefined;
  const args = buildDecodeArgs({ schema: doc.uri.fsPath, root, input: input.file, mode, order });
  output.appendLine(`wirelens: ${bin.command} ${args.join(' ')}`);
  const result = await runWithInput(bin.command, args, input.bytes);
  const size = input.bytes ? `${input.bytes.length} byte(s)` : 'a file';
  const head = `${root} from ${input.source} (${size}${note}), ${schemaName}\n\n`;
  if (result.code !== 0) {
    // The dump up to the error is useful in the view; the toast says only the error.
    await showDecoded(root, head + result.stderr);
    void vscode.window.showErrorMessage(`wirelens decode: ${shortError(result.stderr, result.code)}`);
    return;
  }
  await showDecoded(root, head + result.stdout);
}

/** The message type id in the header of a binary file (its first 10 bytes), if any. */
async function fileTypeId(file: string | undefined): Promise<number | undefined> {
  if (!file) return undefined;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, 'r');
    const head = new Uint8Array(10);
    const { bytesRead } = await handle.read(head, 0, 10, 0);
    return messageTypeId(head.subarray(0, bytesRead));
  } catch {
    return undefined; // the CLI reports the unreadable file
  } finally {
    await handle?.close();
  }
}

/**
 * Explicit generations carry their own progress token, so the `$/progress` of a generation
 * on save (a token the server makes: `wirelens-generate-N`) is told apart from theirs.
 */
let generateToken = 0;

function generationSucceeded(text: string): void {
  vscode.window.setStatusBarMessage(`$(check) ${text}`, 8000);
  output.appendLine(text);
}

function generationFailed(error: string): void {
  output.appendLine(`wirelens: generation failed: ${error}`);
  void vscode.window.showErrorMessage(`wirelens: generation failed: ${error}`);
}

/** The end of a generation the server started itself (on save). */
function reportGeneration(message: string): void {
  const outcome = progressOutcome(message);
  if (outcome.ok) generationSucceeded(`wirelens: generated on save: ${outcome.text}`);
  else generationFailed(outcome.text);
}

/** Runs one `wirelens.generate` request; reports success in the status bar, failure once. */
async function runGenerate(args: unknown[]): Promise<unknown> {
  const c = client;
  if (!c?.isRunning()) {
    void vscode.window.showWarningMessage('wirelens: the language server is not running (see the status bar).');
    return undefined;
  }
  const first = args[0] as { uri?: unknown } | string | undefined;
  const uri = typeof first === 'string' ? first : typeof first?.uri === 'string' ? first.uri : undefined;
  const file = uri ? path.basename(vscode.Uri.parse(uri).fsPath) : 'the schema';
  try {
    generateToken++;
    const result = await c.sendRequest(ExecuteCommandRequest.type, {
      command: GENERATE_COMMAND,
      arguments: args,
      workDoneToken: `wirelens-vscode-${generateToken}`,
    });
    generationSucceeded(describeGeneration(file, result));
    return result;
  } catch (e) {
    generationFailed(shortRequestError(e));
    return undefined;
  }
}

async function generate(): Promise<void> {
  const editor = schemaEditor();
  if (!editor) return;
  const c = client;
  if (!c || !c.isRunning()) {
    void vscode.window.showWarningMessage('wirelens: the language server is not running (see the status bar).');
    return;
  }
  if (!serverOffers(c.initializeResult?.capabilities, GENERATE_COMMAND)) {
    void vscode.window.showInformationMessage(
      'wirelens: this server does not offer code generation yet; generation arrives with the code generators.',
    );
    return;
  }
  if (editor.document.isDirty) await editor.document.save();
  await runGenerate(generateArguments(editor.document.uri.toString(), userSettings()));
}

/** The schema's types for the inspector's root pick, the one under the cursor first. */
async function typeNames(doc: vscode.TextDocument): Promise<string[]> {
  const symbols = await topLevelSymbols(doc.uri).catch(() => []);
  const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc);
  const current = editor ? enclosingType(symbols, editor.selection.active)?.name : undefined;
  const names = symbols.map((s) => s.name);
  return current ? [current, ...names.filter((n) => n !== current)] : names;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  const inspector: InspectorDeps = {
    extensionUri: context.extensionUri,
    client: () => client,
    pickSchema: decodeSchema,
    structs: typeNames,
    log: (line) => output.appendLine(line),
  };
  output = vscode.window.createOutputChannel('wirelens', { log: true });
  status = vscode.window.createStatusBarItem('wirelens.status', vscode.StatusBarAlignment.Left, 0);
  status.name = 'wirelens';
  status.command = 'wirelens.restart';
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand('wirelens.restart', restart),
    vscode.commands.registerCommand('wirelens.decode', decode),
    vscode.commands.registerCommand('wirelens.inspect', (file?: vscode.Uri, root?: string) =>
      inspectCommand(inspector, file instanceof vscode.Uri ? file : undefined, typeof root === 'string' ? root : undefined),
    ),
    vscode.commands.registerCommand('wirelens.generateFile', generate),
    decodedChanged,
    vscode.workspace.registerTextDocumentContentProvider(DECODE_SCHEME, {
      onDidChange: decodedChanged.event,
      provideTextDocumentContent: (uri) => decoded.get(uri.toString()) ?? 'This decoded view has expired; decode again.',
    }),
    vscode.workspace.onDidChangeTextDocument((e) => scheduleLayoutRefresh(e.document)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('wirelens.server.path')) {
        await restart();
        return;
      }
      if (e.affectsConfiguration('wirelens') && client?.isRunning()) {
        await client.sendNotification(DidChangeConfigurationNotification.type, {
          settings: { wirelens: toServerOptions(userSettings()) },
        });
        void refreshLayout(); // e.g. another ffire field order
      }
      if (e.affectsConfiguration('wirelens.inlayHints.enabled')) {
        // The server's hints did not change, only whether we show them: ask VS Code again.
        const feature = client?.getFeature('textDocument/inlayHint');
        for (const editor of vscode.window.visibleTextEditors) {
          feature?.getProvider(editor.document)?.onDidChangeInlayHints.fire();
        }
      }
    }),
    { dispose: () => void stopClient() },
  );
  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
