import { NodeFS } from '@electric-sql/pglite/nodefs';

/** PGlite's NodeFS with group and other permission bits masked off every mode it sets. */
export declare class PrivateNodeFS extends NodeFS {}
