// Text in the one spelling both the skills and the embedding's tokeniser
// read: Unicode NFKC, lowercase, and the dots that belong to a technology's
// name joined ("Node.js" → "nodejs", ".NET" → "dotnet"). It lives in skills,
// so the embedding depends on skills and not the other way round.

/** NFKC, lowercase, and technology spellings joined ("node.js" → "nodejs", ".net" → "dotnet"). */
export function normaliseText(text: string): string {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/(^|[^\p{L}\p{N}])\.net(?![\p{L}\p{N}])/gu, '$1dotnet')
      // a dot inside a word ("node.js", "vue.js") is part of the name, not a full stop
      .replace(/(?<=[\p{L}\p{N}])\.(?=\p{L})/gu, '')
  );
}
