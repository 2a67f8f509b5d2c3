// Reading a synthesized template as data: resources by type, and the logical
// ids a value refers to (Ref, Fn::GetAtt, inside Fn::Join too).

export interface ResourceJson {
  Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties of any shape
  Properties: Record<string, any>;
  DependsOn?: string | string[];
}

export interface TemplateJson {
  Resources: Record<string, ResourceJson>;
  Outputs?: Record<string, { Value: unknown }>;
}

export interface StatementJson {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Principal?: { Service?: string; AWS?: unknown };
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** The statements of a policy document property. */
export const statementsOf = (document: unknown): StatementJson[] =>
  [(document as { Statement: StatementJson | StatementJson[] }).Statement].flat();

export function resourcesOfType(json: TemplateJson, type: string): [string, ResourceJson][] {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

export function resource(json: TemplateJson, id: string): ResourceJson {
  const found = json.Resources[id];
  if (!found) throw new Error(`no resource ${id}`);
  return found;
}

/** Every logical id `value` refers to. */
export function referencedIds(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) referencedIds(item, found);
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string' && !inner.startsWith('AWS::')) found.add(inner);
      else if (key === 'Fn::GetAtt') found.add((inner as string[])[0]!);
      else referencedIds(inner, found);
    }
  }
  return found;
}

/** The one logical id `value` refers to (a Ref or a GetAtt). */
export function refOf(value: unknown): string {
  const ids = [...referencedIds(value)];
  if (ids.length !== 1) throw new Error(`expected one reference in ${JSON.stringify(value)}`);
  return ids[0]!;
}

/** The logical id of the resource of `type` whose `property` is `value` (a QueueName, TopicName…). */
export function idByProperty(json: TemplateJson, type: string, property: string, value: unknown): string {
  const found = resourcesOfType(json, type).filter(([, r]) => r.Properties[property] === value);
  if (found.length !== 1) throw new Error(`${found.length} ${type} with ${property}=${String(value)}`);
  return found[0]![0];
}
