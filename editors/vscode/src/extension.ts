// The wirelens VS Code extension: starts `wirelens lsp`, adds the layout, decode,
// generate and restart commands and a status-bar item.
import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions as LspServerOptions,
  State,
} from 'vscode-languageclient/node';
import { buildDecodeArgs, dialectOf, hasOrderDirective, typeNames } from './decode';
import { enclosingType, escapeHtml, layoutPage } from './layout';
import { ensureBundledExecutable, resolveServer, type ResolvedServer, ServerNotFoundError } from './server';
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
    void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'wirelens.server.path');
    });
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
      executeCommand: (command, args, next) =>
        command === SHOW_LAYOUT ? showLayout(args, (a) => Promise.resolve(next(command, a))) : next(command, args),
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
    void vscode.window.showErrorMessage(message);
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

/**
 * `wirelens.showLayout` belongs to the server (its `executeCommandProvider`; the code lenses
 * run it with `[uri, typeName]`), so vscode-languageclient registers the command and this
 * middleware renders the Markdown the server returns. From the command palette there are no
 * arguments: the struct under the cursor.
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
    name = enclosingType(await topLevelSymbols(uri), editor.selection.active)?.name;
  }
  if (!name) {
    void vscode.window.showInformationMessage('wirelens: put the cursor inside a struct to see its wire layout.');
    return undefined;
  }
  const md = await ask([uri.toString(), name]);
  if (typeof md !== 'string' || !md.trim()) {
    void vscode.window.showInformationMessage(`wirelens: no wire layout for ${name} (see the Problems panel).`);
    return md;
  }
  const title = `Wire layout: ${name}`;
  if (!layoutPanel) {
    layoutPanel = vscode.window.createWebviewPanel('wirelens.layout', title, vscode.ViewColumn.Beside, {
      enableScripts: false,
      enableFindWidget: true,
    });
    layoutPanel.onDidDispose(() => (layoutPanel = undefined));
  }
  layoutPanel.title = title;
  layoutPanel.webview.html = layoutPage(title, await renderMarkdown(md), layoutPanel.webview.cspSource);
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

async function decode(): Promise<void> {
  const editor = schemaEditor();
  if (!editor) return;
  const doc = editor.document;
  if (doc.uri.scheme !== 'file') {
    void vscode.window.showWarningMessage('wirelens: save the schema to a file before decoding.');
    return;
  }
  if (doc.isDirty && !(await doc.save())) return;
  let bin: ResolvedServer;
  try {
    bin = server ?? resolveServer({ configuredPath: vscode.workspace.getConfiguration('wirelens').get('server.path'), extensionPath });
  } catch (e) {
    void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
    return;
  }
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    canSelectFolders: false,
    openLabel: 'Decode',
    title: 'Binary file to decode',
    defaultUri: vscode.Uri.joinPath(doc.uri, '..'),
  });
  const input = picked?.[0];
  if (!input) return;
  const dialect = dialectOf(doc.uri.fsPath) ?? (doc.languageId === 'sdp' ? 'sdp' : 'ffi');
  let names: string[] = [];
  try {
    names = (await topLevelSymbols(doc.uri)).map((s) => s.name);
  } catch {
    // no server: read the names from the text
  }
  if (names.length === 0) names = typeNames(doc.getText(), dialect);
  const current = enclosingType(await topLevelSymbols(doc.uri).catch(() => []), editor.selection.active)?.name;
  const items = current ? [current, ...names.filter((n) => n !== current)] : names;
  const root = await vscode.window.showQuickPick(items, { title: 'Root type of the value', placeHolder: 'type' });
  if (!root) return;
  let mode: 'byte' | 'message' | undefined;
  if (dialect === 'sdp') {
    const m = await vscode.window.showQuickPick(
      [
        { label: 'byte', description: 'the value only' },
        { label: 'message', description: 'with the 10-byte message header' },
      ],
      { title: 'SDP encoding mode' },
    );
    if (!m) return;
    mode = m.label === 'message' ? 'message' : 'byte';
  }
  const s = settings();
  const order = dialect === 'ffi' && s.ffiOrder !== 'default' && !hasOrderDirective(doc.getText()) ? s.ffiOrder : undefined;
  const args = buildDecodeArgs({ schema: doc.uri.fsPath, root, input: input.fsPath, mode, order });
  output.appendLine(`wirelens: ${bin.command} ${args.join(' ')}`);
  const result = await run(bin.command, args);
  if (result.code !== 0) {
    void vscode.window.showErrorMessage(`wirelens decode failed: ${result.stderr.trim() || `exit status ${result.code}`}`);
    return;
  }
  const out = await vscode.workspace.openTextDocument({ content: result.stdout, language: 'plaintext' });
  await vscode.window.showTextDocument(out, { preview: false, viewColumn: vscode.ViewColumn.Beside });
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
  try {
    await c.sendRequest(ExecuteCommandRequest.type, {
      command: GENERATE_COMMAND,
      arguments: generateArguments(editor.document.uri.toString(), userSettings()),
    });
    void vscode.window.showInformationMessage(`wirelens: generated code for ${vscode.workspace.asRelativePath(editor.document.uri)}.`);
  } catch (e) {
    void vscode.window.showErrorMessage(`wirelens: generation failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel('wirelens', { log: true });
  status = vscode.window.createStatusBarItem('wirelens.status', vscode.StatusBarAlignment.Left, 0);
  status.name = 'wirelens';
  status.command = 'wirelens.restart';
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand('wirelens.restart', restart),
    vscode.commands.registerCommand('wirelens.decode', decode),
    vscode.commands.registerCommand('wirelens.generateFile', generate),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('wirelens.server.path')) {
        await restart();
        return;
      }
      if (e.affectsConfiguration('wirelens') && client?.isRunning()) {
        await client.sendNotification(DidChangeConfigurationNotification.type, {
          settings: { wirelens: toServerOptions(userSettings()) },
        });
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
