// The alias table shared by skill normalisation and the embedding's tokeniser,
// so a skill and the same word in a description hash alike.

// Keys are compact forms (lowercase, letters/digits/+/# only); values are the
// canonical compact key. Only unambiguous aliases: "net" (a word) or "tf"
// (terraform or tensorflow) are left alone.
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['js', 'javascript'],
  ['ecmascript', 'javascript'],
  ['es6', 'javascript'],
  ['vanillajs', 'javascript'],
  ['ts', 'typescript'],
  ['node', 'nodejs'],
  ['postgres', 'postgresql'],
  ['psql', 'postgresql'],
  ['pgsql', 'postgresql'],
  ['k8s', 'kubernetes'],
  ['kube', 'kubernetes'],
  ['golang', 'go'],
  ['reactjs', 'react'],
  ['vuejs', 'vue'],
  ['nextjs', 'next'],
  ['nestjs', 'nest'],
  ['expressjs', 'express'],
  ['py', 'python'],
  ['python3', 'python'],
  ['csharp', 'c#'],
  ['cpp', 'c++'],
  ['cplusplus', 'c++'],
  ['amazonwebservices', 'aws'],
  ['googlecloud', 'gcp'],
  ['googlecloudplatform', 'gcp'],
  ['mongo', 'mongodb'],
  ['mssql', 'sqlserver'],
  ['microsoftsqlserver', 'sqlserver'],
  ['restful', 'rest'],
  ['restapi', 'rest'],
  ['restapis', 'rest'],
  ['ml', 'machinelearning'],
  ['html5', 'html'],
  ['css3', 'css'],
  ['rubyonrails', 'rails'],
  ['ror', 'rails'],
  ['elastic', 'elasticsearch'],
]);

/** The canonical form of a one-word key (already compact), or the key itself. */
export function canonicalSkillKey(compactKey: string): string {
  return ALIASES.get(compactKey) ?? compactKey;
}
