/**
 * Resolving the references of a submitted resource. A participant is either contained (`#id`, with the
 * resource in `contained`) or, where a logical reference is enough, given inline (`Reference.identifier`,
 * with `display` for a name). A literal reference to a resource elsewhere (`Patient/pat1`) is refused: this
 * service keeps no Patient, Organization or Coverage resources to look it up in.
 */
import type { Reference, Resource } from '@medplum/fhirtypes';
import type { FhirIssue } from './outcome.ts';

export interface Resolved<T extends Resource> {
  resource: T;
  /** FHIRPath of the resource, e.g. `CoverageEligibilityRequest.contained[1]`. */
  path: string;
}

export type Resolution<T extends Resource> =
  | { kind: 'contained'; found: Resolved<T> }
  | { kind: 'inline'; reference: Reference; path: string }
  | { kind: 'problem'; issue: FhirIssue };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The contained resources of `root`, by id, with their paths. */
export function containedById(
  root: Record<string, unknown>,
  rootType: string,
): Map<string, Resolved<Resource>> {
  const byId = new Map<string, Resolved<Resource>>();
  const contained = Array.isArray(root.contained) ? root.contained : [];
  contained.forEach((resource, index) => {
    if (isRecord(resource) && typeof resource.id === 'string' && typeof resource.resourceType === 'string') {
      byId.set(resource.id, {
        resource: resource as unknown as Resource,
        path: `${rootType}.contained[${index}]`,
      });
    }
  });
  return byId;
}

/**
 * What `reference` (at FHIRPath `path`) points to: a contained resource of one of `types`, an inline
 * logical reference (when `inline` allows one), or the problem with it.
 */
export function resolveReference<T extends Resource>(
  reference: unknown,
  path: string,
  contained: Map<string, Resolved<Resource>>,
  types: readonly T['resourceType'][],
  inline: boolean,
): Resolution<T> {
  const what = types.join(' or ');
  if (!isRecord(reference)) {
    return {
      kind: 'problem',
      issue: { code: 'required', diagnostics: `A reference to the ${what} is required.`, expression: path },
    };
  }
  const literal = reference.reference;
  if (typeof literal === 'string') {
    if (!literal.startsWith('#')) {
      return {
        kind: 'problem',
        issue: {
          code: 'not-supported',
          diagnostics: `Only contained resources are resolved: put the ${what} in \`contained\` and reference it as "#id".`,
          expression: `${path}.reference`,
        },
      };
    }
    const found = contained.get(literal.slice(1));
    if (!found) {
      return {
        kind: 'problem',
        issue: {
          code: 'invalid',
          diagnostics: `No contained resource has the id this reference names.`,
          expression: `${path}.reference`,
        },
      };
    }
    if (!(types as readonly string[]).includes(found.resource.resourceType)) {
      return {
        kind: 'problem',
        issue: {
          code: 'invalid',
          diagnostics: `The contained resource referenced here must be a ${what}.`,
          expression: `${path}.reference`,
        },
      };
    }
    return { kind: 'contained', found: found as Resolved<T> };
  }
  if (inline && isRecord(reference.identifier))
    return { kind: 'inline', reference: reference as Reference, path };
  return {
    kind: 'problem',
    issue: {
      code: 'required',
      diagnostics: inline
        ? `Reference a contained ${what} ("#id"), or give its identifier inline.`
        : `Reference a contained ${what} ("#id").`,
      expression: path,
    },
  };
}
