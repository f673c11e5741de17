/**
 * The public X12 corpus vendored in test/fixtures/x12-corpus (its README says where each file comes from and
 * under which licence). Tests read it through these two names only, so it has one location.
 */
import { fileURLToPath } from 'node:url';

/** The corpus folder as a file URL ending in `/`: `new URL('tigershark/…', CORPUS)`. */
export const CORPUS = new URL('../fixtures/x12-corpus/', import.meta.url);

/** The corpus folder as a path, for `join` and for command lines. */
export const CORPUS_DIR = fileURLToPath(CORPUS);
