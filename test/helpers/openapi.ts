/** Reading the OpenAPI document in tests: named schemas are `$ref`s to `components.schemas`. */

type Json = any;

/** The schema `node` stands for: the named schema it references, or itself. */
export function deref(doc: Json, node: Json): Json {
  const ref: unknown = node?.$ref;
  if (typeof ref !== 'string') return node;
  const prefix = '#/components/schemas/';
  if (!ref.startsWith(prefix)) throw new Error(`unexpected $ref ${ref}`);
  const target = doc.components?.schemas?.[ref.slice(prefix.length)];
  if (!target) throw new Error(`$ref ${ref} names no schema`);
  return deref(doc, target);
}
