/**
 * Reading what a browser sent: the fields of a posted form (@fastify/formbody) and query-string values,
 * always as strings, so a page never sees an array, an object or `undefined` where it expects text.
 */
import type { FastifyRequest } from 'fastify';

export type Form = Record<string, unknown>;

/** The parsed form (@fastify/formbody); any other body, or none, reads as an empty form. */
export function formBody(request: FastifyRequest): Form {
  const b = request.body;
  return b && typeof b === 'object' && !Array.isArray(b) ? { ...b } : {};
}

/** The first value of a field as a string ('' when absent). */
export function formValue(form: Form, name: string): string {
  const v = form[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : '';
}

/** Every value of a repeated field (checkboxes). */
export function formValues(form: Form, name: string): string[] {
  const v = form[name];
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}

export function queryValue(request: FastifyRequest, name: string): string {
  const q = request.query;
  const v: unknown = q !== null && typeof q === 'object' ? Reflect.get(q, name) : undefined;
  return typeof v === 'string' ? v : '';
}
