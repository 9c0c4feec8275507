/*
 * Text a reader cannot see: Unicode tag characters (U+E0000–E007F, which can
 * spell out instructions invisibly), zero-width characters and joiners,
 * bidirectional controls (which reorder what is displayed), the BOM and
 * soft hyphens. Quotes from an untrusted repository are shown without them,
 * and say how many were removed, so what an agent reads is what a person sees.
 */

const HIDDEN = /[\u{E0000}-\u{E007F}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD]/gu;

export function withoutHidden(text: string): string {
  return text.replace(HIDDEN, '');
}

export function hiddenCharacters(text: string): number {
  return text.match(HIDDEN)?.length ?? 0;
}
