// "wirelens: Inspect binary file…": a webview with the bytes (hex), the decoded tree
// and a value inspector, from the server's `wirelens/inspect` on the schema's current
// (unsaved) text. Re-decodes on schema edits; follows the schema editor's cursor.
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { type InspectResult, inspectParams, inspectorPage, isSdpMessage, type Rng, WINDOW_BYTES } from './inspectorModel';

export const INSPECT_REQUEST = 'wirelens/inspect';
/** Schema edits re-decode after this quiet time. */
const DEBOUNCE_MS = 250;

export interface InspectorDeps {
  extensionUri: vscode.Uri;
  client: () => LanguageClient | undefined;
  /** The schema: the active one, else a pick. */
  pickSchema: () => Promise<vscode.TextDocument | undefined>;
  /** The struct names of a schema, the one under the cursor first. */
  structs: (doc: vscode.TextDocument) => Promise<string[]>;
  log: (line: string) => void;
}

function nonce(): string {
  let s = '';
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  for (let i = 0; i < 32; i++) s += chars.charAt(Math.floor(Math.random() * chars.length));
  return s;
}

export async function inspectCommand(deps: InspectorDeps, fileArg?: vscode.Uri, rootArg?: string): Promise<void> {
  const doc = await deps.pickSchema();
  if (!doc) return;
  let file = fileArg;
  if (!file) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      canSelectFolders: false,
      openLabel: 'Inspect',
      title: 'Binary file to inspect',
      defaultUri: vscode.Uri.joinPath(doc.uri, '..'),
    });
    file = picked?.[0];
  }
  if (!file) return;
  let bytes: Uint8Array;
  try {
    bytes = file.scheme === 'file' ? await fs.readFile(file.fsPath) : await vscode.workspace.fs.readFile(file);
  } catch (e) {
    void vscode.window.showErrorMessage(`wirelens inspect: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  let root = rootArg;
  if (!root && !isSdpMessage(doc.languageId, bytes.subarray(0, 10))) {
    const names = await deps.structs(doc);
    if (names.length === 0) {
      void vscode.window.showWarningMessage('wirelens: the schema declares no types (or has errors).');
      return;
    }
    root = names.length === 1 ? names[0] : await vscode.window.showQuickPick(names, { title: 'Root type of the bytes' });
    if (!root) return;
  }
  new Inspector(deps, doc, file, bytes, root);
}

/** One inspector panel. */
class Inspector {
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private window = { start: 0, length: WINDOW_BYTES };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;
  /** Messages for the page before its script said `ready` (it would miss them). */
  private queued: unknown[] | undefined = [];

  constructor(
    private readonly deps: InspectorDeps,
    private readonly doc: vscode.TextDocument,
    private readonly file: vscode.Uri,
    private readonly bytes: Uint8Array,
    private readonly root: string | undefined,
  ) {
    const name = file.path.split('/').pop() ?? 'bytes';
    const media = vscode.Uri.joinPath(deps.extensionUri, 'dist');
    this.panel = vscode.window.createWebviewPanel('wirelens.inspector', `Inspect: ${name}`, vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [media],
    });
    const script = this.panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'inspector.js'));
    this.panel.webview.html = inspectorPage(`Inspect ${name}`, script.toString(), this.panel.webview.cspSource, nonce());
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage((m) => this.onMessage(m)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === this.doc && e.contentChanges.length) this.schedule();
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor.document !== this.doc) return;
        const p = e.selections[0]?.active;
        this.send({ type: 'schemaCursor', position: p ? { line: p.line, character: p.character } : null });
      }),
    );
    this.panel.onDidDispose(() => {
      if (this.timer) clearTimeout(this.timer);
      for (const d of this.disposables) d.dispose();
    });
    // The first decode runs while the page loads (both take a while): its answer waits for
    // `ready` in the queue.
    void this.run();
  }

  /** Posts to the page, or queues until it is ready. */
  private send(message: unknown): void {
    if (this.queued) this.queued.push(message);
    else void this.panel.webview.postMessage(message);
  }

  private onMessage(m: { type?: string; range?: Rng; start?: number; length?: number }): void {
    if (m.type === 'ready') {
      const queued = this.queued;
      this.queued = undefined;
      this.send({ type: 'init', bytes: Buffer.from(this.bytes).toString('base64') });
      if (!queued) {
        // The page loaded again (VS Code reloads a webview it moves): decode for it again.
        void this.run();
        return;
      }
      // What came while it loaded: the newest answer (a schema edit may have made two), then
      // the cursor; an answer still on its way is posted when it comes.
      const last = queued.filter((q) => (q as { type?: string }).type !== 'schemaCursor').pop();
      if (last) this.send(last);
      for (const q of queued) if ((q as { type?: string }).type === 'schemaCursor') this.send(q);
    } else if (m.type === 'reveal' && m.range) {
      void this.reveal(m.range);
    } else if (m.type === 'window' && typeof m.start === 'number') {
      this.window = { start: m.start, length: m.length ?? WINDOW_BYTES };
      void this.run();
    }
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, DEBOUNCE_MS);
  }

  private async run(): Promise<void> {
    const c = this.deps.client();
    if (!c?.isRunning()) {
      this.send({ type: 'failed', message: 'the language server is not running' });
      return;
    }
    const n = ++this.generation;
    const input =
      this.file.scheme === 'file' ? { path: this.file.fsPath } : { data: Buffer.from(this.bytes).toString('base64') };
    const params = inspectParams(this.doc.uri.toString(), input, this.root, this.window);
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await c.sendRequest<InspectResult>(INSPECT_REQUEST, params);
        if (n === this.generation) this.send({ type: 'result', result });
        return;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        // The schema may have been opened a moment ago: its didOpen can trail this request.
        if (attempt < 3 && message.includes('not an open schema document')) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        this.deps.log(`wirelens inspect: ${message}`);
        if (n === this.generation) this.send({ type: 'failed', message });
        return;
      }
    }
  }

  private async reveal(range: Rng): Promise<void> {
    const r = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
    const shown = vscode.window.visibleTextEditors.find((e) => e.document === this.doc);
    const editor = await vscode.window.showTextDocument(this.doc, {
      viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One,
      preserveFocus: true,
      preview: false,
    });
    editor.selection = new vscode.Selection(r.start, r.start);
    editor.revealRange(r, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}
