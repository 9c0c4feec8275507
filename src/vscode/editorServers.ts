/*
 * Whether VS Code has anything that could answer definition requests for a
 * language, decided from the installed extensions' manifests before a single
 * request is sent. vscode.executeDefinitionProvider answers `[]` both when no
 * provider exists and while a server is still loading its project, so asking
 * cannot tell the two apart: without this, a workspace with Python files and
 * no Python extension waited a minute for a server that was never coming.
 * No `vscode` import, so it is tested in node (test/unit/vscode.servers.test.ts).
 */

/** What Tenure reads of an installed extension: vscode.Extension's id and manifest. */
export interface ExtensionManifest {
  readonly id: string;
  readonly packageJSON: {
    readonly main?: unknown;
    readonly browser?: unknown;
    readonly activationEvents?: readonly unknown[];
    readonly contributes?: { readonly languages?: readonly { readonly id?: unknown }[] };
  };
}

/**
 * The extensions that could provide code intelligence for any of these VS
 * Code language ids: code to run (`main` or `browser`) and a tie to the
 * language — activated by `onLanguage:<id>`, or contributing the language
 * itself (which activates it implicitly). A grammar-only extension (VS Code's
 * built-in `python` has no code) does not count, nor does one that activates
 * on everything (`*`, `onStartupFinished`) without naming the language: such
 * extensions (git, Copilot) are everywhere and answer no definitions.
 */
export function serverCandidates(languageIds: readonly string[], extensions: readonly ExtensionManifest[], selfId: string): string[] {
  const ids = new Set(languageIds);
  const out: string[] = [];
  for (const ext of extensions) {
    if (ext.id.toLowerCase() === selfId.toLowerCase()) continue;
    const p = ext.packageJSON;
    if (!p.main && !p.browser) continue;
    const onLanguage = (p.activationEvents ?? []).some((e) => typeof e === 'string' && e.startsWith('onLanguage:') && ids.has(e.slice('onLanguage:'.length)));
    const contributes = (p.contributes?.languages ?? []).some((l) => typeof l.id === 'string' && ids.has(l.id));
    if (onLanguage || contributes) out.push(ext.id);
  }
  return out;
}
